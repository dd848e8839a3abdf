#include "engine/adamw.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/_foreach_add.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_norm.h>
#include <ATen/ops/_foreach_sub.h>
#include <ATen/ops/_fused_adamw.h>

#include "common/error.h"
#include "model/cpu_kernel.h"

namespace bertpt::engine {

namespace {

// The per-step scalars of one update, as the fp32 values torch's ops use on fp32 tensors.
struct AdamWScalars {
  float grad_scale;    // the clipping coefficient (1: unclipped); g·scale is what clip_grads would leave in .grad
  float decay_factor;  // 1 - lr * weight_decay (1 in the no-decay group)
  float beta1, one_minus_beta1, beta2, one_minus_beta2;
  float bias_correction2_sqrt, eps, neg_step_size;
};

// One AdamW update of n fp32 elements in a single pass over memory: the operations of the tensor-op
// version below (torch.optim.AdamW's single-tensor path) in the same order, equal to rounding
// (tested). One read of p, g, m, v and one write of p, m, v instead of ~8 passes and two
// temporaries; memory-bound, it took a bert-base step on 2 cores from 4.79 to 3.94 s. The gradient
// clipping's multiply happens here too (the product rounded as clip_grads rounds it): one pass over the
// gradients less.
BERTPT_VECTOR_CLONES
void adamw_cpu_range(float* __restrict p, const float* __restrict g, float* __restrict m, float* __restrict v,
                     int64_t n, AdamWScalars s) {
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * s.grad_scale;
    const float mi = m[i] * s.beta1 + s.one_minus_beta1 * gi;
    const float vi = v[i] * s.beta2 + s.one_minus_beta2 * gi * gi;  // addcmul: (value * t1) * t2
    m[i] = mi;
    v[i] = vi;
    const float denom = std::sqrt(vi) / s.bias_correction2_sqrt + s.eps;
    p[i] = p[i] * s.decay_factor + s.neg_step_size * mi / denom;  // addcdiv: (value * t1) / t2
  }
}

}  // namespace

AdamWKernel adamw_kernel_named(const std::string& optim) {
  if (optim == "adamw_torch_fused") return AdamWKernel::LibTorchFused;
  if (optim == "adamw_torch") return AdamWKernel::TensorOps;
  if (optim == "adamw_bertpt") return AdamWKernel::Bertpt;
  return AdamWKernel::Auto;
}

bool is_no_decay_parameter(const std::string& name) {
  if (name.find("bias") != std::string::npos || name.find("LayerNorm.") != std::string::npos) return true;
  // ModernBERT's norms ("model.final_norm.weight", "model.layers.1.attn_norm.weight", "head.norm.weight"):
  // what the Trainer's patterns (?:^|\.)norm(?:$|\.) and _norm(?:$|\.) catch.
  return name.rfind("norm.", 0) == 0 || name.find(".norm.") != std::string::npos ||
         name.find("_norm.") != std::string::npos;
}

AdamW::AdamW(std::vector<std::pair<std::string, at::Tensor>> named_parameters, AdamWOptions options)
    : options_(options) {
  at::NoGradGuard no_grad;
  for (auto& [name, p] : named_parameters) {
    Slot s;
    s.name = name;
    s.param = p;
    // Moments in fp32 whatever the parameter dtype: tiny second moments underflow in bf16.
    s.exp_avg = at::zeros(p.sizes(), p.options().dtype(at::kFloat));
    s.exp_avg_sq = at::zeros(p.sizes(), p.options().dtype(at::kFloat));
    s.decay = !is_no_decay_parameter(name);
    s.step = at::zeros({}, p.options().dtype(at::kFloat));
    slots_.push_back(std::move(s));
  }
}

void AdamW::zero_grad() {
  for (auto& s : slots_) {
    // Drop the gradient instead of zeroing it (set_to_none): the first backward writes it fresh.
    if (s.param.grad().defined()) s.param.mutable_grad() = at::Tensor();
  }
}

// The kernel for a parameter and its gradient (the moments are fp32, contiguous, on its device).
AdamWKernel AdamW::kernel_for(const at::Tensor& param, const at::Tensor& grad) const {
  const bool cpu_loop = param.is_cpu() && grad.is_cpu() && param.scalar_type() == at::kFloat &&
                        grad.scalar_type() == at::kFloat && param.is_contiguous() && grad.is_contiguous();
  // at::_fused_adamw_ wants parameter, gradient and moments of one floating dtype, on CPU or CUDA.
  const bool same_dtype = param.scalar_type() == at::kFloat && grad.scalar_type() == at::kFloat;
  const bool libtorch_fused = same_dtype && (param.is_cuda() || param.is_cpu());
  if (options_.lamb) return AdamWKernel::TensorOps;
  switch (options_.kernel) {
    case AdamWKernel::Auto:
      if (cpu_loop) return AdamWKernel::Bertpt;
      return libtorch_fused && param.is_cuda() ? AdamWKernel::LibTorchFused : AdamWKernel::TensorOps;
    case AdamWKernel::Bertpt: return cpu_loop ? AdamWKernel::Bertpt : AdamWKernel::TensorOps;
    case AdamWKernel::LibTorchFused: return libtorch_fused ? AdamWKernel::LibTorchFused : AdamWKernel::TensorOps;
    case AdamWKernel::TensorOps: break;
  }
  return AdamWKernel::TensorOps;
}

bool AdamW::skips_on_device() const {
  for (const Slot& s : slots_) {
    // Gradients take the parameter's dtype and layout.
    if (kernel_for(s.param, s.param) != AdamWKernel::LibTorchFused) return false;
  }
  return !slots_.empty();
}

void AdamW::uncount_skipped(int64_t n) {
  step_ -= n;
  for (Slot& s : slots_) s.step_value -= n;  // their device counters were not advanced either
}

std::string AdamW::kernel_name() const {
  if (options_.lamb) return "lamb";
  AdamWKernel k = options_.kernel;
  if (!slots_.empty()) {
    // Resolved for the largest parameter (the embeddings in BERT); gradients take its dtype.
    const Slot* big = &slots_.front();
    for (const Slot& s : slots_) {
      if (s.param.numel() > big->param.numel()) big = &s;
    }
    k = kernel_for(big->param, big->param);
  }
  switch (k) {
    case AdamWKernel::Bertpt: return "bertpt";
    case AdamWKernel::LibTorchFused: return "libtorch_fused";
    default: return "tensor_ops";
  }
}

// One at::_fused_adamw_ call over `slots` (one parameter group, so one weight decay). The step
// counts live in device tensors, advanced by one _foreach_add_ as torch.optim.AdamW does, so the
// update never waits for the host.
void AdamW::step_fused(const std::vector<Slot*>& slots, double lr, double weight_decay, const at::Tensor& found_inf) {
  if (slots.empty()) return;
  std::vector<at::Tensor> p, g, m, v, steps;
  for (Slot* s : slots) {
    // A slot updated by another kernel before (or restored from a checkpoint) catches up first.
    if (s->step_value != step_ - 1) s->step.fill_(double(step_ - 1));
    s->step_value = step_;
    p.push_back(s->param);
    g.push_back(s->param.grad());
    m.push_back(s->exp_avg);
    v.push_back(s->exp_avg_sq);
    steps.push_back(s->step);
  }
  at::_foreach_add_(steps, 1.0);
  std::optional<at::Tensor> inf;
  if (found_inf.defined()) inf = found_inf;
  at::_fused_adamw_(p, g, m, v, /*max_exp_avg_sqs=*/{}, steps, lr, options_.beta1, options_.beta2, weight_decay,
                    options_.eps, /*amsgrad=*/false, /*maximize=*/false, /*grad_scale=*/std::nullopt, inf);
  // A skipped update does not count (torch.optim.AdamW does the same after a GradScaler skip).
  if (found_inf.defined()) at::_foreach_sub_(steps, std::vector<at::Tensor>(steps.size(), found_inf));
}

// One LAMB update (adamw.h) of every tensor in `slots`, on LibTorch's multi-tensor _foreach_ ops: a
// few kernels per step for all tensors together on CUDA (instead of about ten per tensor), a loop on
// CPU. The trust ratios stay device tensors: no host sync.
void AdamW::step_lamb(const std::vector<Slot*>& slots, double lr, double bc1, double bc2) {
  if (slots.empty()) return;
  const double b1 = options_.beta1, b2 = options_.beta2;
  std::vector<at::Tensor> g, m, v;
  for (Slot* s : slots) g.push_back(s->param.grad()), m.push_back(s->exp_avg), v.push_back(s->exp_avg_sq);
  at::_foreach_mul_(m, b1);
  at::_foreach_add_(m, g, 1.0 - b1);
  at::_foreach_mul_(v, b2);
  at::_foreach_addcmul_(v, g, g, 1.0 - b2);
  std::vector<at::Tensor> denom = at::_foreach_div(v, bc2);
  at::_foreach_sqrt_(denom);
  at::_foreach_add_(denom, options_.eps);
  std::vector<at::Tensor> update = at::_foreach_div(m, bc1);
  at::_foreach_div_(update, denom);
  // Biases and LayerNorm: plain Adam, no decay, no trust ratio. The others: u + wd·p scaled by ‖p‖/‖u‖.
  std::vector<at::Tensor> p_plain, u_plain, p_trust, u_trust;
  for (size_t i = 0; i < slots.size(); ++i) {
    (slots[i]->decay ? p_trust : p_plain).push_back(slots[i]->param);
    (slots[i]->decay ? u_trust : u_plain).push_back(update[i]);
  }
  if (!p_plain.empty()) at::_foreach_add_(p_plain, u_plain, -lr);
  if (p_trust.empty()) return;
  if (options_.weight_decay != 0.0) at::_foreach_add_(u_trust, p_trust, options_.weight_decay);
  const at::Tensor p_norm = at::stack(at::_foreach_norm(p_trust)), u_norm = at::stack(at::_foreach_norm(u_trust));
  const at::Tensor ratio = at::where((p_norm > 0).logical_and(u_norm > 0), p_norm / u_norm, at::ones_like(p_norm));
  at::_foreach_mul_(u_trust, ratio.unbind(0));  // each tensor by its own 0-d ratio
  at::_foreach_add_(p_trust, u_trust, -lr);
}

// clip_grads' multiply for the gradients that bertpt's CPU loop does not read (it scales as it reads).
void AdamW::clip_other_kernels(const at::Tensor& clip) {
  std::vector<at::Tensor> grads;
  for (const Slot& s : slots_) {
    const at::Tensor& g = s.param.grad();
    if (g.defined() && kernel_for(s.param, g) != AdamWKernel::Bertpt) grads.push_back(g);
  }
  scale_grads(grads, clip);
}

void AdamW::step(double lr, const at::Tensor& found_inf, const at::Tensor& clip) {
  at::NoGradGuard no_grad;
  if (found_inf.defined() && !skips_on_device()) {
    throw Error(Error::Kind::Internal, "AdamW::step: found_inf needs the LibTorch fused kernel for every parameter");
  }

  ++step_;
  const double b1 = options_.beta1, b2 = options_.beta2;
  const double bc1 = 1.0 - std::pow(b1, double(step_));
  const double bc2 = 1.0 - std::pow(b2, double(step_));
  const double step_size = lr / bc1;
  const double bc2_sqrt = std::sqrt(bc2);
  if (clip.defined()) clip_other_kernels(clip);
  // Read only for CPU gradients (bertpt's loop runs on no others): no device sync.
  const float clip_value = clip.defined() && clip.is_cpu() ? clip.item<float>() : 1.0f;
  std::vector<Slot*> fused_decay, fused_no_decay, lamb;
  for (auto& s : slots_) {
    const at::Tensor& g = s.param.grad();
    if (!g.defined()) continue;
    const bool decay = s.decay && options_.weight_decay != 0.0;
    const AdamWKernel kernel = kernel_for(s.param, g);
    if (kernel == AdamWKernel::LibTorchFused) {
      (decay ? fused_decay : fused_no_decay).push_back(&s);
      continue;
    }
    if (kernel == AdamWKernel::Bertpt) {
      AdamWScalars k;
      k.grad_scale = clip_value;
      k.decay_factor = decay ? float(1.0 - lr * options_.weight_decay) : 1.0f;
      k.beta1 = float(b1);
      k.one_minus_beta1 = float(1.0 - b1);
      k.beta2 = float(b2);
      k.one_minus_beta2 = float(1.0 - b2);
      k.bias_correction2_sqrt = float(bc2_sqrt);
      k.eps = float(options_.eps);
      k.neg_step_size = float(-step_size);
      float* p = s.param.data_ptr<float>();
      const float* gp = g.data_ptr<float>();
      float* m = s.exp_avg.data_ptr<float>();
      float* v = s.exp_avg_sq.data_ptr<float>();
      at::parallel_for(0, s.param.numel(), 1 << 15, [=](int64_t begin, int64_t end) {
        adamw_cpu_range(p + begin, gp + begin, m + begin, v + begin, end - begin, k);
      });
      continue;
    }
    if (options_.lamb) {
      lamb.push_back(&s);
      continue;
    }
    if (decay) s.param.mul_(1.0 - lr * options_.weight_decay);
    s.exp_avg.mul_(b1).add_(g, 1.0 - b1);
    s.exp_avg_sq.mul_(b2).addcmul_(g, g, 1.0 - b2);
    at::Tensor denom = (s.exp_avg_sq.sqrt() / bc2_sqrt).add_(options_.eps);
    s.param.addcdiv_(s.exp_avg, denom, -step_size);
  }
  step_lamb(lamb, lr, bc1, bc2);
  step_fused(fused_decay, lr, options_.weight_decay, found_inf);
  step_fused(fused_no_decay, lr, 0.0, found_inf);
}

std::vector<std::string> AdamW::decay_names() const {
  std::vector<std::string> v;
  for (const auto& s : slots_) {
    if (s.decay) v.push_back(s.name);
  }
  return v;
}

std::vector<std::string> AdamW::no_decay_names() const {
  std::vector<std::string> v;
  for (const auto& s : slots_) {
    if (!s.decay) v.push_back(s.name);
  }
  return v;
}

std::vector<std::pair<std::string, at::Tensor>> AdamW::state_tensors() const {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& s : slots_) {
    out.emplace_back("exp_avg." + s.name, s.exp_avg.to(at::kCPU).contiguous());
    out.emplace_back("exp_avg_sq." + s.name, s.exp_avg_sq.to(at::kCPU).contiguous());
  }
  return out;
}

void AdamW::load_state(const std::vector<std::pair<std::string, at::Tensor>>& tensors, int64_t steps,
                       const std::string& source) {
  at::NoGradGuard no_grad;
  std::map<std::string, at::Tensor> by_name(tensors.begin(), tensors.end());
  for (auto& s : slots_) {
    for (auto* which : {&s.exp_avg, &s.exp_avg_sq}) {
      const std::string key = (which == &s.exp_avg ? "exp_avg." : "exp_avg_sq.") + s.name;
      auto it = by_name.find(key);
      if (it == by_name.end())
        throw BadInput(source + ": optimizer state has no tensor " + key,
                       "the checkpoint is incomplete or from another model");
      if (it->second.sizes() != which->sizes()) {
        throw BadInput(source + ": optimizer tensor " + key + " has the wrong shape",
                       "the checkpoint is from another model");
      }
      which->copy_(it->second);
    }
  }
  step_ = steps;
}

namespace {

// The defined gradients of `parameters`, in order.
std::vector<at::Tensor> defined_grads(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad().detach());
  }
  return grads;
}

bool all_float(const std::vector<at::Tensor>& ts) {
  return std::all_of(ts.begin(), ts.end(), [](const at::Tensor& t) { return t.scalar_type() == at::kFloat; });
}

}  // namespace

at::Tensor global_grad_norm(const std::vector<at::Tensor>& parameters) {
  const std::vector<at::Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return at::zeros({}, at::kFloat);
  // Multi-tensor kernels (one launch on CUDA instead of one per parameter) for fp32 gradients.
  std::vector<at::Tensor> norms;
  if (all_float(grads)) {
    norms = at::_foreach_norm(grads, 2);
  } else {
    for (const auto& g : grads) norms.push_back(g.to(at::kFloat).norm(2));
  }
  return at::stack(norms).norm(2);  // sqrt(sum of squares) of the per-tensor norms
}

at::Tensor clip_coefficient(const at::Tensor& norm, double max_norm) {
  if (max_norm <= 0) return {};
  at::NoGradGuard no_grad;
  return (max_norm / (norm + 1e-6)).clamp_max(1.0);  // [] on the gradients' device
}

void scale_grads(std::vector<at::Tensor> grads, const at::Tensor& coef) {
  if (grads.empty()) return;
  at::NoGradGuard no_grad;
  if (all_float(grads)) {
    at::_foreach_mul_(grads, coef);
    return;
  }
  for (auto& g : grads) g.mul_(coef.to(g.scalar_type()));
}

void clip_grads(const std::vector<at::Tensor>& parameters, const at::Tensor& norm, double max_norm) {
  if (max_norm <= 0) return;
  scale_grads(defined_grads(parameters), clip_coefficient(norm, max_norm));
}

}  // namespace bertpt::engine
