// Rotary position embeddings (RoPE) in the rotate_half form of Hugging Face's modeling_modernbert.py:
//
//   y = x·cos + rotate_half(x)·sin,   rotate_half(x) = cat(-x[half:], x[:half])
//
// with cos/sin fp32 tables and the arithmetic in fp32, y in x's dtype. On the CPU one kernel computes
// y (and, in the backward, the transposed rotation of the gradient) in one pass over x; elsewhere the
// same formula runs as ATen operations. Both give the same bits: each output element is one product
// minus or plus another, each rounded once (the kernel's file is compiled without FMA contraction).
// The kernel's output is contiguous, so attention's batched GEMMs read q and k without copying them.
//
// Shape legend: hd head dimension (even), positions T; x [..., hd] with its last dimension dense.
#pragma once

#include <cstdint>
#include <utility>

#include <ATen/ATen.h>

namespace bertpt::model {

// cos and sin of the rotary embedding for positions 0..T-1: [T, hd] each, fp32 on `device`.
std::pair<at::Tensor, at::Tensor> rotary_cos_sin(int64_t T, int64_t head_dim, double theta, c10::Device device);

// x·cos + rotate_half(x)·sin in fp32, returned in x's dtype; differentiable in x. cos, sin broadcast
// against x: [T, hd] for x [B, nh, T, hd], or [N, 1, hd] for packed tokens x [N, nh, hd].
at::Tensor apply_rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

// The same through ATen operations only (what apply_rotary runs off the CPU): the reference the CPU
// kernel is tested against.
at::Tensor apply_rotary_aten(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

}  // namespace bertpt::model
