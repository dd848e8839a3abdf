// gated_activation (model/glu.h) gives the bits of the composite act(a) · g over split halves,
// forward and backward (the gradient of h in one tensor), for gelu, its tanh form and silu, in fp32,
// bf16 and fp64; other activations run as the composite.
#include "model/glu.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <functional>
#include <string>

namespace bertpt::model {
namespace {

using Gated = std::function<at::Tensor(const at::Tensor&, const std::string&)>;

// The output and h's gradient under a fixed random weighting of the output.
std::pair<at::Tensor, at::Tensor> run(const Gated& gated, const std::string& act, at::ScalarType dtype) {
  at::manual_seed(5);
  at::Tensor h = (2 * at::randn({3, 4, 10})).to(dtype).requires_grad_();
  at::Tensor y = gated(h, act);
  at::manual_seed(9);
  (y * at::randn(y.sizes()).to(dtype)).sum().backward();
  return {y, h.grad()};
}

TEST(GatedActivation, EqualsTheCompositeBitForBit) {
  for (const std::string act : {"gelu", "gelu_pytorch_tanh", "silu", "relu"}) {
    for (at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kDouble}) {
      SCOPED_TRACE(act + " " + std::string(c10::toString(dtype)));
      auto [y, dh] = run(gated_activation, act, dtype);
      auto [y_ref, dh_ref] = run(gated_activation_aten, act, dtype);
      EXPECT_EQ(y.sizes(), (at::IntArrayRef{3, 4, 5}));
      EXPECT_TRUE(at::equal(y, y_ref));
      EXPECT_TRUE(at::equal(dh, dh_ref)) << "max |diff| " << (dh - dh_ref).abs().max().item<double>();
      EXPECT_GT(dh.abs().sum().item<double>(), 0.0);
      EXPECT_EQ(dh.scalar_type(), dtype);
    }
  }
}

TEST(GatedActivation, OneNodeForGeluAndTheCompositeOtherwise) {
  const at::Tensor h = at::randn({2, 8}).requires_grad_();
  EXPECT_NE(gated_activation(h, "gelu").grad_fn()->name().find("GatedActivation"), std::string::npos);
  EXPECT_EQ(gated_activation(h, "relu").grad_fn()->name().find("GatedActivation"), std::string::npos);
  at::NoGradGuard no_grad;
  EXPECT_TRUE(at::equal(gated_activation(h, "gelu"), gated_activation_aten(h, "gelu")));
}

}  // namespace
}  // namespace bertpt::model
