#include "model/attention.h"

#include <cmath>

#include <ATen/ATen.h>

#include "model/ops.h"
#include "model/torch_compat.h"

namespace bertpt::model {

namespace {

// -(2 - 2^-7) · 2^127: the lowest finite bf16, exactly representable in fp32.
constexpr double kLowest = -3.3895313892515355e38;

}  // namespace

AttentionKernel resolve_attention(AttentionKernel kernel, c10::DeviceType device_type) {
  if (kernel != AttentionKernel::Auto) return kernel;
  return torch_compat::has_fused_sdpa(device_type) ? AttentionKernel::Fused : AttentionKernel::Explicit;
}

std::string attention_kernel_name(AttentionKernel kernel, c10::DeviceType device_type) {
  return resolve_attention(kernel, device_type) == AttentionKernel::Fused ? "fused" : "explicit";
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& additive_mask,
                  double p, AttentionKernel kernel) {
  if (resolve_attention(kernel, q.device().type()) == AttentionKernel::Fused) {
    return torch_compat::scaled_dot_product_attention(q, k, v, additive_mask, p);
  }
  const int64_t hd = q.size(-1);
  // Scaling q ([B, nh, T, hd]) instead of the scores ([B, nh, T, T]) is cheaper when T > hd, and
  // the multiply doubles as the copy that makes q contiguous for the batched GEMM.
  at::Tensor scores = at::matmul(q * (1.0 / std::sqrt(static_cast<double>(hd))), k.transpose(-2, -1));  // [B, nh, T, T]
  if (additive_mask.defined()) scores = scores + additive_mask;  // fp32 mask promotes bf16 scores
  // Softmax in fp32 whatever the autocast state (1.13's CPU autocast would keep it in bf16).
  at::Tensor probs = at::softmax(scores, -1, ops::accumulate_type(scores));  // [B, nh, T, T]
  // Dropout after the cast to v's dtype (bf16 under autocast): half the bytes to mask.
  probs = ops::dropout(probs.to(v.scalar_type()), p, p > 0.0);
  return at::matmul(probs, v);
}

at::Tensor additive_attention_mask(const at::Tensor& attention_mask) {
  at::Tensor keep = attention_mask.to(at::kFloat);            // [B, T]
  return ((1.0 - keep) * kLowest).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, T]
}

at::Tensor sliding_window_mask(int64_t T, int64_t half_window, const at::Tensor& padding, c10::Device device) {
  at::Tensor pos = at::arange(T, at::TensorOptions().dtype(at::kLong).device(device));
  at::Tensor outside = (pos.unsqueeze(1) - pos.unsqueeze(0)).abs().gt(half_window);  // [T, T]
  at::Tensor band = outside.to(at::kFloat) * kLowest;                                // [T, T]
  band = band.unsqueeze(0).unsqueeze(0);                                             // [1, 1, T, T]
  // Both masked: the sum would overflow to -inf; clamp keeps it the finite lowest value.
  return padding.defined() ? (band + padding).clamp_min(kLowest) : band;
}

}  // namespace bertpt::model
