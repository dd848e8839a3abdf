#include "cli/version.h"

#ifdef BERTPT_HAVE_TORCH
#include "distributed/communicator.h"
#include "model/torch_compat.h"
#endif

namespace bertpt::cli {

std::string version_string() {
  std::string s = std::string("bertpt ") + BERTPT_VERSION;
#ifdef BERTPT_HAVE_TORCH
  const torch_compat::BuildInfo info = torch_compat::build_info();
  const std::string nccl = distributed::nccl_version();
  s += "\nLibTorch " + info.torch;
  s += "\nCUDA " + (info.cuda.empty() ? std::string("no")
                                      : info.cuda + " (" + std::to_string(info.cuda_devices) + " device(s) visible)");
  s += "\nNCCL " + (nccl.empty() ? std::string("no") : nccl);
  s += "\nCPU threads: " + info.cpu_parallel + "; BLAS: " + (info.blas.empty() ? "unknown" : info.blas);
#else
  s += "\nLibTorch no (built with -DBERTPT_WITH_TORCH=OFF: data stages only)";
#endif
  return s;
}

}  // namespace bertpt::cli
