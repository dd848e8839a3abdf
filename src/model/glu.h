// The gated MLP activation of ModernBERT (GeGLU with hidden_act "gelu"): for h = [a, g] = Wi·x,
//
//   glu(h) = act(a) · g,   a = h[..., :I], g = h[..., I:]
//
// as one autograd node. Through ATen's split, mul and activation, the backward computes the two
// halves' gradients apart and then concatenates them (a copy of [..., 2I] per layer); here it writes
// them into one [..., 2I] gradient in place. The arithmetic is ATen's own operations (mul,
// gelu_backward, silu_backward), so forward and backward give the same bits as the composite.
#pragma once

#include <string>

#include <ATen/core/Tensor.h>

namespace bertpt::model {

// h: [..., 2I] -> [..., I]. `activation` as ops::activation; "gelu", "gelu_new",
// "gelu_pytorch_tanh", "silu" and "swish" run as one node, other activations as the composite.
at::Tensor gated_activation(const at::Tensor& h, const std::string& activation);

// The composite: ops::activation(a) * g over h.split(I, -1), the reference of the tests.
at::Tensor gated_activation_aten(const at::Tensor& h, const std::string& activation);

}  // namespace bertpt::model
