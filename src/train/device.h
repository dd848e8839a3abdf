// Thread settings and device strings for the model commands, without LibTorch in the header.
#pragma once

#include <string>

namespace bertpt::train {

// at::set_num_threads(n) when n > 0 (0 keeps LibTorch's default: all cores).
void set_threads(int n);

// Checks `device` ("cpu", "cuda", "cuda:N") against this build and machine and returns its full
// form ("cpu", "cuda:0"). BadInput with a hint otherwise.
std::string normalize_device(const std::string& device);

}  // namespace bertpt::train
