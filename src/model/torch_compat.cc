#include "model/torch_compat.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/autocast_mode.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/ops/_flash_attention_forward.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

namespace bertpt::torch_compat {

std::string torch_version() { return TORCH_VERSION; }

namespace {

// The value of `key=` in LibTorch's build summary (at::show_config(): lines "  - KEY=value, ...").
std::string config_value(const std::string& config, const std::string& key) {
  auto at = config.find(key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 1;
  return config.substr(at, config.find_first_of(",\n", at) - at);
}

}  // namespace

BuildInfo build_info() {
  BuildInfo info;
  info.torch = TORCH_VERSION;
  // The CUDA hooks are registered by libtorch_cuda; in a CPU LibTorch their stand-ins throw.
  const at::CUDAHooksInterface& cuda = at::detail::getCUDAHooks();
  try {
    const long v = cuda.versionCUDART();  // e.g. 13000 for 13.0
    info.cuda = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    info.cuda_devices = cuda.getNumGPUs();
  } catch (const c10::Error&) {
  }
  info.cpu_parallel = at::get_openmp_version() + ", " + std::to_string(at::get_num_threads()) + " threads";
  info.blas = config_value(at::show_config(), "BLAS_INFO");
  return info;
}

bool autocast_enabled(c10::DeviceType device_type) { return at::autocast::is_autocast_enabled(device_type); }
c10::ScalarType autocast_dtype(c10::DeviceType device_type) { return at::autocast::get_autocast_dtype(device_type); }

AutocastGuard::AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled)
    : device_type_(device_type) {
  if (!enabled) return;
  // bertpt runs on CPU and CUDA; other device types keep their autocast state.
  if (device_type != c10::DeviceType::CPU && device_type != c10::DeviceType::CUDA) return;
  prev_enabled_ = at::autocast::is_autocast_enabled(device_type);
  prev_dtype_ = at::autocast::get_autocast_dtype(device_type);
  at::autocast::set_autocast_enabled(device_type, true);
  at::autocast::set_autocast_dtype(device_type, dtype);
  at::autocast::increment_nesting();
  active_ = true;
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  // The cached bf16 copies of the weights are only valid until the optimizer changes them: drop
  // them when the outermost region ends, as torch.autocast does.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_type_, prev_enabled_);
  at::autocast::set_autocast_dtype(device_type_, prev_dtype_);
}

bool has_fused_sdpa(c10::DeviceType device_type) {
  // CUDA: flash / memory-efficient kernels. The CPU flash kernel exists too, but in bf16 training it
  // is slower than bertpt's explicit path on LibTorch 2.13 (model_bench, 2-core EPYC, 2026-12-03:
  // bert-base seq 128 0.65 vs 0.82 of the GEMM rate, bert-mini seq 512 0.24 vs 0.52).
  return device_type == c10::DeviceType::CUDA;
}

at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                        const at::Tensor& additive_mask, double dropout_p) {
  c10::optional<at::Tensor> mask;
  // The kernels want the mask in the dtype of q (under autocast q is bf16, the mask fp32).
  if (additive_mask.defined()) mask = additive_mask.to(q.scalar_type());
  return at::scaled_dot_product_attention(q, k, v, mask, dropout_p, /*is_causal=*/false);
}

// The window arguments of at::_flash_attention_forward came with LibTorch 2.6; 2.13 and 2.14 (the
// pinned wheels, requirements/) have them.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
#define BERTPT_FLASH_WINDOW 1
#else
#define BERTPT_FLASH_WINDOW 0
#endif

bool has_flash_varlen(const at::Tensor& q, bool windowed) {
  if (!q.is_cuda() || q.dim() != 3) return false;
  if (q.scalar_type() != at::kBFloat16 && q.scalar_type() != at::kHalf) return false;
  const int64_t hd = q.size(-1);
  return hd % 8 == 0 && hd <= 256 && (!windowed || BERTPT_FLASH_WINDOW);
}

at::Tensor flash_attention_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& cu_seqlens, int64_t max_length, int64_t half_window,
                                  double dropout_p) {
  // The kernel reads rows with unit stride in the last dimension only; k and v may be views of a
  // packed qkv projection.
  const at::Tensor kc = k.contiguous(), vc = v.contiguous();
#if BERTPT_FLASH_WINDOW
  std::optional<int64_t> window;
  if (half_window >= 0) window = half_window;
  auto out = at::_flash_attention_forward(q.contiguous(), kc, vc, cu_seqlens, cu_seqlens, max_length, max_length,
                                          dropout_p, /*is_causal=*/false, /*return_debug_mask=*/false,
                                          /*scale=*/std::optional<double>(), window, window);
#else
  (void)half_window;  // has_flash_varlen refuses windows here
  auto out = at::_flash_attention_forward(q.contiguous(), kc, vc, cu_seqlens, cu_seqlens, max_length, max_length,
                                          dropout_p, /*is_causal=*/false, /*return_debug_mask=*/false);
#endif
  return std::get<0>(out);
}

namespace {

RawAllocateFn g_allocate = nullptr;
RawReleaseFn g_release = nullptr;
std::size_t g_min_bytes = 0;

void release(void* p) {
  if (!g_release(p)) std::free(p);
}

class RoutingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(std::size_t n) override { return make(n); }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }

 private:
  static c10::DataPtr make(std::size_t n) {
    const c10::Device cpu(c10::DeviceType::CPU);
    if (n >= g_min_bytes) {
      void* p = g_allocate(n);
      return {p, p, &release, cpu};
    }
    void* p = nullptr;
    // 64 bytes: the alignment LibTorch's own CPU allocator guarantees and its kernels assume.
    if (posix_memalign(&p, 64, n == 0 ? 64 : n) != 0) throw std::bad_alloc();
    return {p, p, &release, cpu};
  }
};

}  // namespace

void set_cpu_allocator(RawAllocateFn allocate, RawReleaseFn release, std::size_t min_bytes) {
  // The deleters are plain functions, so tensors freed during exit still find their way back.
  static RoutingCpuAllocator allocator;
  g_allocate = allocate;
  g_release = release;
  g_min_bytes = min_bytes;
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
}

}  // namespace bertpt::torch_compat
