// The one place for calls whose API differs between LibTorch 1.13 (Debian, CI) and 2.x (CUDA
// builds). Everything else includes only stable LibTorch headers.
#pragma once

#include <cstddef>
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace bertpt::torch_compat {

// The LibTorch version the binary was compiled against, e.g. "1.13.0".
std::string torch_version();

// Mixed precision for the scope of the guard: matmul-like ops run in `dtype` (bf16), while
// numerically sensitive ops follow LibTorch's autocast policy. Restores the previous state (enabled
// flag and dtype) on destruction and clears the weight-cast cache when the outermost guard ends,
// like torch.autocast. Run backward() outside the guard. `enabled == false` makes it a no-op, so
// callers can write one code path for fp32 and bf16.
// 1.13 and 2.0–2.3 have per-device setters (set_cpu_enabled / set_enabled); 2.4+ has
// set_autocast_enabled(device_type, ...): hidden in torch_compat.cc.
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_type_;
  bool active_ = false;
  bool prev_enabled_ = false;
  c10::ScalarType prev_dtype_ = c10::ScalarType::Float;
};

// Whether autocast is currently on for this device type, and its lower-precision dtype.
bool autocast_enabled(c10::DeviceType device_type);
c10::ScalarType autocast_dtype(c10::DeviceType device_type);

// True when this LibTorch has a scaled-dot-product-attention operator that is worth calling on
// `device_type` (2.x: at::scaled_dot_product_attention, with flash / memory-efficient kernels on
// CUDA and a fused kernel on CPU). 1.13's at::_scaled_dot_product_attention exists but is an
// unfused composite (and runs softmax in the input dtype), so this returns false there.
bool has_fused_sdpa(c10::DeviceType device_type);

// softmax(q kᵀ / sqrt(head_dim) + mask) v with dropout on the probabilities, through LibTorch's
// scaled-dot-product-attention operator (on 1.13 the composite one, which computes the same thing).
//   q, k, v:       [B, nh, T, hd]
//   additive_mask: [B, 1, 1, T] (0 where attended, a large negative number where masked), or
//                  undefined for no mask
// Returns [B, nh, T, hd].
at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                        const at::Tensor& additive_mask, double dropout_p);

// Makes LibTorch allocate every new CPU tensor of at least `min_bytes` with `allocate` (smaller ones:
// 64-byte aligned malloc, as LibTorch's default does). One deleter serves both, as LibTorch's raw
// allocation API requires: `release` returns false for a pointer that is not its own, which then
// goes to free(). Tensors that
// already exist keep their own deleter. The Allocator interface changed in 2.3 (allocate() lost its
// const, copy_data() became pure virtual): the adapter class lives in torch_compat.cc.
using RawAllocateFn = void* (*)(std::size_t bytes);
using RawReleaseFn = bool (*)(void* p);
void set_cpu_allocator(RawAllocateFn allocate, RawReleaseFn release, std::size_t min_bytes);

}  // namespace bertpt::torch_compat
