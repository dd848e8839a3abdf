// Scaled dot-product attention for both encoders (bert.h, modernbert.h): the kernel choice, the
// computation, and the additive masks (padding, and ModernBERT's sliding window).
//
// Shape legend: B batch, nh heads, T sequence length, hd head size.
#pragma once

#include <cstdint>
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>

namespace bertpt::model {

// How self-attention is computed.
//   Fused:    LibTorch's scaled-dot-product-attention operator (torch_compat).
//   Explicit: matmul, additive mask, softmax in fp32, dropout, matmul.
//   Auto:     Fused where it is the faster choice (CUDA), else Explicit (CPU; measured).
enum class AttentionKernel { Auto, Fused, Explicit };

// What `kernel` runs on `device_type`: Fused or Explicit (Auto resolved).
AttentionKernel resolve_attention(AttentionKernel kernel, c10::DeviceType device_type);
// The same as a name: "fused" (at::scaled_dot_product_attention) or "explicit".
std::string attention_kernel_name(AttentionKernel kernel, c10::DeviceType device_type);

// softmax(q·kᵀ/√hd + additive_mask) · v with dropout `p` on the probabilities.
// q, k, v: [B, nh, T, hd]; additive_mask: broadcastable to [B, nh, T, T] (fp32) or undefined.
// Returns [B, nh, T, hd].
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& additive_mask,
                  double p, AttentionKernel kernel);

// [B, T] mask (1 = attend) -> [B, 1, 1, T] fp32 additive mask: 0 where attended, and the most
// negative finite bf16 value where masked (finite in fp32 and bf16, so a fully masked row gives a
// uniform softmax instead of NaN; far enough below any score to vanish after exp()).
at::Tensor additive_attention_mask(const at::Tensor& attention_mask);

// The additive mask of a bidirectional sliding window: query i sees key j iff |i - j| <= half_window
// (transformers' create_bidirectional_sliding_window_mask with sliding_window = half_window), combined
// with `padding` ([B, 1, 1, T] from additive_attention_mask, or undefined). Returns [1 or B, 1, T, T]
// fp32 on `device`.
at::Tensor sliding_window_mask(int64_t T, int64_t half_window, const at::Tensor& padding, c10::Device device);

}  // namespace bertpt::model
