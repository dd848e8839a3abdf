#pragma once

#include <string>

namespace bertpt::cli {

// What `bertpt --version` prints: bertpt's version, then (in a build with LibTorch) the LibTorch,
// CUDA and NCCL versions ("no" where absent) and the CPU thread pool and BLAS LibTorch uses.
std::string version_string();

}  // namespace bertpt::cli
