#include "engine/device.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/Device.h>

#include "common/error.h"
#include "model/cpu_runtime.h"
#include "model/torch_compat.h"

namespace bertpt::engine {

void setup_cpu_runtime(int threads) {
  if (threads < 0) throw BadInput("--threads must be >= 0");
  // 0 means every CPU this process may use: Debian's LibTorch otherwise starts with one thread.
  at::set_num_threads(threads > 0 ? threads : model::available_cpus());
  model::use_block_cache_for_cpu_tensors();
}

std::string normalize_device(const std::string& text) {
  c10::Device device(c10::kCPU);
  try {
    device = c10::Device(text);
  } catch (const c10::Error&) {
    throw BadInput("--device '" + text + "' is not a device", "use cpu, cuda or cuda:N");
  }
  if (device.is_cuda()) {
    if (!at::hasCUDA()) {
      const std::string cuda = torch_compat::build_info().cuda;
      if (cuda.empty()) {
        throw BadInput("--device " + text + ": this bertpt is built against a CPU-only LibTorch",
                       "use --device cpu, or build against a CUDA LibTorch (scripts/build-cuda, README)");
      }
      throw BadInput("--device " + text + ": no CUDA device is visible (this build has CUDA " + cuda + ")",
                     "check nvidia-smi and CUDA_VISIBLE_DEVICES, or use --device cpu");
    }
    const int n = at::detail::getCUDAHooks().getNumGPUs();
    if (device.has_index() && device.index() >= n) {
      throw BadInput("--device " + text + ": only " + std::to_string(n) + " CUDA device(s) visible");
    }
    if (!device.has_index()) device = c10::Device(c10::kCUDA, 0);
  } else if (!device.is_cpu()) {
    throw BadInput("--device " + text + " is not supported", "use cpu, cuda or cuda:N");
  }
  return device.str();
}

std::string setup_runtime(int threads, const std::string& device) {
  setup_cpu_runtime(threads);
  return normalize_device(device);
}

}  // namespace bertpt::engine
