#include "model/glu.h"

#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include "model/ops.h"

namespace bertpt::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The activations with an ATen backward of (grad, input): gelu (exact or tanh) and silu.
enum class GatedKind { Gelu, GeluTanh, Silu, Other };

GatedKind gated_kind(const std::string& name) {
  if (name == "gelu") return GatedKind::Gelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return GatedKind::GeluTanh;
  if (name == "silu" || name == "swish") return GatedKind::Silu;
  return GatedKind::Other;
}

at::Tensor activate(const at::Tensor& a, GatedKind kind) {
  if (kind == GatedKind::Silu) return at::silu(a);
  return at::gelu(a, kind == GatedKind::GeluTanh ? "tanh" : "none");
}

// d(act)/da applied to `grad` into `out`, as autograd's GeluBackward0 / SiluBackward0 compute it.
void activation_backward_into(at::Tensor& out, const at::Tensor& grad, const at::Tensor& a, GatedKind kind) {
  if (kind == GatedKind::Silu) {
    at::silu_backward_out(out, grad, a);
  } else {
    at::gelu_backward_out(out, grad, a, kind == GatedKind::GeluTanh ? "tanh" : "none");
  }
}

class GatedActivation : public torch::autograd::Function<GatedActivation> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& h, int64_t kind) {
    const int64_t I = h.size(-1) / 2;
    const at::Tensor a = h.narrow(-1, 0, I), g = h.narrow(-1, I, I);
    const at::Tensor act = activate(a, GatedKind(kind));
    ctx->save_for_backward({h, act});
    ctx->saved_data["kind"] = kind;
    return act * g;
  }

  // dg = grad · act(a) and da = act'(a) · (grad · g), written into the two halves of one dh.
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor()};
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor &h = saved[0], &act = saved[1], &grad = grads[0];
    const auto kind = GatedKind(ctx->saved_data["kind"].toInt());
    const int64_t I = h.size(-1) / 2;
    at::Tensor dh = at::empty(h.sizes(), grad.options().dtype(h.scalar_type()));
    at::Tensor da = dh.narrow(-1, 0, I), dg = dh.narrow(-1, I, I);
    at::mul_out(dg, grad, act);
    activation_backward_into(da, grad * h.narrow(-1, I, I), h.narrow(-1, 0, I), kind);
    return {dh, at::Tensor()};
  }
};

}  // namespace

at::Tensor gated_activation_aten(const at::Tensor& h, const std::string& activation) {
  // split: one backward (a cat), not two zero-filled slices.
  const std::vector<at::Tensor> halves = h.split(h.size(-1) / 2, -1);
  return ops::activation(halves[0], activation) * halves[1];
}

at::Tensor gated_activation(const at::Tensor& h, const std::string& activation) {
  const GatedKind kind = gated_kind(activation);
  if (kind == GatedKind::Other || h.size(-1) % 2 != 0) return gated_activation_aten(h, activation);
  return GatedActivation::apply(h, int64_t(kind));
}

}  // namespace bertpt::model
