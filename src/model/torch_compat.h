// The one place for calls whose API differs between LibTorch 1.13 (Debian, CI) and 2.x (CUDA
// builds). Everything else includes only stable LibTorch headers.
#pragma once

#include <string>

namespace bertpt::torch_compat {

// The LibTorch version the binary was compiled against, e.g. "1.13.0".
std::string torch_version();

}  // namespace bertpt::torch_compat
