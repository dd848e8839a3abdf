// The two ways a training step fails that the user can fix, as one-line errors with a hint instead
// of a LibTorch stack trace: out of memory (the batch does not fit) and divergence (the non-finite
// policy gave up). Shared by every task that trains.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

namespace bertpt::engine {

// Whether `e` is an allocation failure: std::bad_alloc, or a LibTorch error from the CPU allocator
// ("not enough memory", "can't allocate memory") or the CUDA caching allocator ("out of memory").
bool is_out_of_memory(const std::exception& e);

// BadInput: out of memory at this per-device batch size, with the hint to trade it for accumulation.
[[noreturn]] void throw_out_of_memory(int64_t per_device_batch_size, const std::string& device);

// BadInput: `streak` consecutive steps had a non-finite loss or gradient, up to step `step`.
[[noreturn]] void throw_diverged(int64_t streak, int64_t step);

}  // namespace bertpt::engine
