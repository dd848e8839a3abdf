#include "model/torch_compat.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
#include <ATen/ops/scaled_dot_product_attention.h>
#else
#include <ATen/ops/_scaled_dot_product_attention.h>
#endif

#define BERTPT_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace bertpt::torch_compat {

std::string torch_version() { return TORCH_VERSION; }

namespace {

bool get_enabled(c10::DeviceType d) {
#if BERTPT_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(d);
#else
  return d == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

void set_enabled(c10::DeviceType d, bool on) {
#if BERTPT_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(d, on);
#else
  if (d == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(on);
  } else {
    at::autocast::set_enabled(on);
  }
#endif
}

c10::ScalarType get_dtype(c10::DeviceType d) {
#if BERTPT_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(d);
#else
  return d == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
#endif
}

void set_dtype(c10::DeviceType d, c10::ScalarType t) {
#if BERTPT_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(d, t);
#else
  if (d == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(t);
  } else {
    at::autocast::set_autocast_gpu_dtype(t);
  }
#endif
}

}  // namespace

bool autocast_enabled(c10::DeviceType device_type) { return get_enabled(device_type); }
c10::ScalarType autocast_dtype(c10::DeviceType device_type) { return get_dtype(device_type); }

AutocastGuard::AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled)
    : device_type_(device_type) {
  if (!enabled) return;
  // Autocast exists for CPU and CUDA here; the 1.13 API has no per-device switch for others.
  if (device_type != c10::DeviceType::CPU && device_type != c10::DeviceType::CUDA) return;
  prev_enabled_ = get_enabled(device_type);
  prev_dtype_ = get_dtype(device_type);
  set_enabled(device_type, true);
  set_dtype(device_type, dtype);
  at::autocast::increment_nesting();
  active_ = true;
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  // The cached bf16 copies of the weights are only valid until the optimizer changes them: drop
  // them when the outermost region ends, as torch.autocast does.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_enabled(device_type_, prev_enabled_);
  set_dtype(device_type_, prev_dtype_);
}

bool has_fused_sdpa(c10::DeviceType device_type) {
#if TORCH_VERSION_MAJOR >= 2
  // 2.0 has fused kernels on CUDA only; the CPU flash kernel arrived in 2.1 (masks in 2.3).
  if (device_type == c10::DeviceType::CUDA) return true;
  return BERTPT_TORCH_AT_LEAST(2, 3) && device_type == c10::DeviceType::CPU;
#else
  (void)device_type;
  return false;
#endif
}

at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                        const at::Tensor& additive_mask, double dropout_p) {
  c10::optional<at::Tensor> mask;
  // The kernels want the mask in the dtype of q (under autocast q is bf16, the mask fp32).
  if (additive_mask.defined()) mask = additive_mask.to(q.scalar_type());
#if TORCH_VERSION_MAJOR >= 2
  return at::scaled_dot_product_attention(q, k, v, mask, dropout_p, /*is_causal=*/false);
#else
  return std::get<0>(at::_scaled_dot_product_attention(q, k, v, mask, dropout_p, /*need_attn_weights=*/false,
                                                       /*is_causal=*/false));
#endif
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
  // 1.13 – 2.2 declare `allocate(size_t) const`, 2.3+ `allocate(size_t)`: defining both overrides
  // whichever this LibTorch has (neither is marked override for that reason).
  c10::DataPtr allocate(std::size_t n) const { return make(n); }
  c10::DataPtr allocate(std::size_t n) { return make(n); }
  // Pure virtual since 2.3, absent before.
  void copy_data(void* dest, const void* src, std::size_t count) const { std::memcpy(dest, src, count); }
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
