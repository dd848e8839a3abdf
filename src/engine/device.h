// Thread settings and device strings for the model commands, without LibTorch in the header.
#pragma once

#include <string>

namespace bertpt::engine {

// Sets up the CPU side of a process that runs the model: `threads` intra-op threads (0: every CPU
// this process may use) and the block cache for CPU tensors (model/cpu_runtime.h). Every command
// that runs the model calls it first, whatever the device: data loading and the optimizer state of
// CPU runs live in CPU tensors either way.
void setup_cpu_runtime(int threads);

// Checks `device` ("cpu", "cuda", "cuda:N") against this build and machine and returns its full
// form ("cpu", "cuda:0"). BadInput with a hint otherwise.
std::string normalize_device(const std::string& device);

// What every command that runs the model does first: setup_cpu_runtime(threads), then
// normalize_device(device).
std::string setup_runtime(int threads, const std::string& device);

}  // namespace bertpt::engine
