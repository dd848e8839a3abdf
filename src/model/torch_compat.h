// The one place for LibTorch calls outside its stable tensor API (autocast state, the SDPA operator,
// the CPU allocator hook, build facts). bertpt supports LibTorch 2.4 <= version < 3 (CMakeLists.txt
// checks it); everything else includes only stable LibTorch headers.
#pragma once

#include <cstddef>
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace bertpt::torch_compat {

// The LibTorch version the binary was compiled against, e.g. "2.13.0".
std::string torch_version();

// What this LibTorch was built with, for `bertpt --version`.
struct BuildInfo {
  std::string torch;         // "2.13.0"
  std::string cuda;          // CUDA runtime version ("13.0"), empty for a CPU-only LibTorch
  int cuda_devices = 0;      // CUDA devices visible to this process
  std::string cpu_parallel;  // "OpenMP 201511 (a.k.a. OpenMP 4.5), 2 threads"
  std::string blas;          // "open" (OpenBLAS), "mkl", ...: LibTorch's BLAS_INFO
};
BuildInfo build_info();

// Mixed precision for the scope of the guard: matmul-like ops run in `dtype` (bf16), while
// numerically sensitive ops follow LibTorch's autocast policy. Restores the previous state (enabled
// flag and dtype) on destruction and clears the weight-cast cache when the outermost guard ends,
// like torch.autocast. Run backward() outside the guard. `enabled == false` makes it a no-op, so
// callers can write one code path for fp32 and bf16.
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

// True when LibTorch's scaled-dot-product-attention operator is the faster attention on
// `device_type`: on CUDA (flash / memory-efficient kernels); not on CPU, where its flash kernel is
// slower than the explicit path in bf16 training (measured, torch_compat.cc).
bool has_fused_sdpa(c10::DeviceType device_type);

// softmax(q kᵀ / sqrt(head_dim) + mask) v with dropout on the probabilities, through LibTorch's
// scaled-dot-product-attention operator (at::scaled_dot_product_attention).
//   q, k, v:       [B, nh, T, hd]
//   additive_mask: [B, 1, 1, T] (0 where attended, a large negative number where masked), or
//                  undefined for no mask
// Returns [B, nh, T, hd].
at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                        const at::Tensor& additive_mask, double dropout_p);

// Whether flash_attention_varlen can take q ([N, nh, hd]): a CUDA tensor in bf16 or fp16, hd a
// multiple of 8 up to 256 (the flash kernel's limits), a LibTorch that has the kernel's window
// arguments when `windowed`.
bool has_flash_varlen(const at::Tensor& q, bool windowed);

// LibTorch's variable-length flash-attention kernel (at::_flash_attention_forward, with its autograd
// backward): q, k, v [N, nh, hd] hold sequences packed back to back, sequence s at rows
// cu_seqlens[s] .. cu_seqlens[s + 1] - 1 (int32 [S + 1] on q's device), none longer than max_length.
// Bidirectional, scale 1/sqrt(hd), dropout `dropout_p` on the probabilities; half_window >= 0 limits
// row i to keys |i - j| <= half_window within its sequence. Returns [N, nh, hd].
at::Tensor flash_attention_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& cu_seqlens, int64_t max_length, int64_t half_window,
                                  double dropout_p);

// Makes LibTorch allocate every new CPU tensor of at least `min_bytes` with `allocate` (smaller ones:
// 64-byte aligned malloc, as LibTorch's default does). One deleter serves both, as LibTorch's raw
// allocation API requires: `release` returns false for a pointer that is not its own, which then
// goes to free(). Tensors that
// already exist keep their own deleter.
using RawAllocateFn = void* (*)(std::size_t bytes);
using RawReleaseFn = bool (*)(void* p);
void set_cpu_allocator(RawAllocateFn allocate, RawReleaseFn release, std::size_t min_bytes);

}  // namespace bertpt::torch_compat
