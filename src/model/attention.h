// Scaled dot-product attention for both encoders (bert.h, modernbert.h): the kernel choice, the
// computation, and the additive masks (padding, and ModernBERT's sliding window).
//
// Shape legend: B batch, nh heads, T sequence length, hd head size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>

namespace bertpt::model {

// How self-attention is computed.
//   Fused:    LibTorch's scaled-dot-product-attention operator (torch_compat).
//   Explicit: matmul, additive mask, softmax in fp32, dropout, matmul.
//   Auto:     Fused where it is the faster choice (CUDA), else Explicit (CPU; measured).
enum class AttentionKernel { Auto, Fused, Explicit };

// "fused", "explicit", else Auto (the option's values: mlm/pretrain_options.h checks them).
AttentionKernel attention_kernel_named(const std::string& name);
// What `kernel` runs on `device_type`: Fused or Explicit (Auto resolved).
AttentionKernel resolve_attention(AttentionKernel kernel, c10::DeviceType device_type);
// The same as a name: "fused" (at::scaled_dot_product_attention) or "explicit".
std::string attention_kernel_name(AttentionKernel kernel, c10::DeviceType device_type);

// softmax(q·kᵀ/√hd + additive_mask) · v with dropout `p` on the probabilities.
// q, k, v: [B, nh, T, hd]; additive_mask: broadcastable to [B, nh, T, T] (fp32) or undefined.
// Returns [B, nh, T, hd].
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& additive_mask,
                  double p, AttentionKernel kernel);

// Sequences packed back to back along the first dimension of a [N, ...] tensor (an unpadded batch):
// sequence s is rows offsets[s] .. offsets[s + 1] - 1.
struct PackedSequences {
  std::vector<int64_t> offsets;  // S + 1 entries on the host: 0, L0, L0 + L1, ..., N
  at::Tensor cu_seqlens;         // the same as an int32 tensor on the tensors' device (flash attention's form)
  int64_t max_length = 0;
  int64_t half_window = -1;  // the sliding window of attend_packed(windowed = true); < 0: none
  int64_t count() const { return offsets.empty() ? 0 : int64_t(offsets.size()) - 1; }

  // For attention without a variable-length kernel: the non-empty sequences in a few groups of
  // similar length (longest first), each group a padded batch [count, length] of its own.
  struct Group {
    int64_t count = 0, length = 0;
    at::Tensor rows;     // [n] int64: the group's packed rows, sequence after sequence
    at::Tensor slots;    // [n] int64: where each lands in the group's [count · length] positions
    at::Tensor padding;  // [count, 1, 1, length] additive mask (attention.h's values), or undefined
    at::Tensor window;   // `padding` with the sliding window of half_window, or undefined if it covers all
  };
  std::vector<Group> groups;
  at::Tensor group_rows;  // [N] int64: the groups' rows, concatenated
};
// The packing of sequences of `lengths` tokens on `device`; `half_window` (< 0: none) is the sliding
// window the groups' `window` masks carry.
PackedSequences pack_sequences(const std::vector<int64_t>& lengths, int64_t half_window, c10::Device device);

// Attention within each packed sequence, no padding anywhere: q, k, v [N, nh, hd] -> [N, nh, hd].
// windowed: query row i of a sequence sees the key rows j with |i - j| <= the half_window given to
// pack_sequences (sliding_window_mask's rule); else the whole sequence. On CUDA in bf16/fp16 (kernel
// Auto or Fused): LibTorch's variable-length flash-attention kernel (torch_compat.h); elsewhere
// attend() once per length group, so padding costs the attention only up to each group's longest.
at::Tensor attend_packed(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const PackedSequences& seqs,
                         bool windowed, double p, AttentionKernel kernel);

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
