#include "model/torch_compat.h"

#include <torch/version.h>

namespace bertpt::torch_compat {

std::string torch_version() { return TORCH_VERSION; }

}  // namespace bertpt::torch_compat
