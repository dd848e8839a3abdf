#include "cli/version.h"

#ifdef BERTPT_HAVE_TORCH
#include "model/torch_compat.h"
#endif

namespace bertpt::cli {

std::string version_string() {
#ifdef BERTPT_HAVE_TORCH
  return std::string("bertpt ") + BERTPT_VERSION + " (LibTorch " + torch_compat::torch_version() + ")";
#else
  return std::string("bertpt ") + BERTPT_VERSION + " (built without LibTorch)";
#endif
}

}  // namespace bertpt::cli
