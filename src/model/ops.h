// The two operations BERT's step spends its non-GEMM time in, done the way a 2-core CPU needs
// (measured on LibTorch 1.13, bert-base, bf16, see docs/benchmarks.md):
//
//   linear:  y = x·Wᵀ + b as one autograd node that runs its GEMMs in the autocast dtype and returns
//            a contiguous fp32 weight gradient. Through autocast, LibTorch's linear yields the weight
//            gradient as a transposed view, converted and re-laid-out (a strided copy) before it
//            reaches .grad — for the tied 32000×768 decoder weight that alone took ~1 s per step.
//   dropout: a counter-based hash instead of at::bernoulli_ on CPU (which draws ~25 M numbers/s
//            here, seconds per bert-base step). The mask is a pure function of (seed, element
//            index): the same for any thread count, recomputed in backward instead of stored.
//            Same distribution as torch's dropout up to a 2⁻¹⁶ granularity of p; on CUDA it is
//            at::dropout.
#pragma once

#include <string>

#include <ATen/core/Tensor.h>

namespace bertpt::model::ops {

// x: [..., in], weight: [out, in], bias: [out] (may be undefined) -> [..., out].
// Under autocast for x's device the GEMMs run in the autocast dtype (bf16) and the output is bf16,
// as with torch's autocast; otherwise everything runs in x's dtype. Gradients come back in each
// input's own dtype (fp32 master weights get fp32 gradients), the weight gradient contiguous.
at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// The dtype softmax and the loss run in: fp32 for bf16/fp16 activations (autocast), else the
// activations' own (so an fp64 model, used by the tests, stays fp64 end to end).
inline at::ScalarType accumulate_type(const at::Tensor& t) {
  return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

// LayerNorm over the last dimension, in the dtype of its (fp32 master) weights; `bias` may be
// undefined (ModernBERT's norms have none). In the encoders the input is already fp32 (the residual
// stream: fp32 + bf16 promotes to fp32); in the MLM heads it is a bf16 GEMM output under autocast,
// which 1.13's CPU LayerNorm cannot mix with fp32 weights.
at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps);

// The activation named by a config's hidden_act: "gelu" (exact erf), "gelu_new" /
// "gelu_pytorch_tanh" (tanh approximation), "relu", "silu" / "swish". Throws BadInput otherwise.
at::Tensor activation(const at::Tensor& x, const std::string& name);

// Inverted dropout: zero each element with probability p, scale the rest by 1/(1-p). Identity when
// !train or p == 0. The seed of each call comes from LibTorch's default CPU generator, so
// torch::manual_seed makes runs reproducible.
at::Tensor dropout(const at::Tensor& x, double p, bool train);

}  // namespace bertpt::model::ops
