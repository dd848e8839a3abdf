// AdamW (Loshchilov & Hutter: weight decay decoupled from the gradient), as torch.optim.AdamW
// computes it, with Hugging Face Trainer's two parameter groups: biases and LayerNorm parameters get
// no weight decay. The moments are plain fp32 tensors named after the parameters, so a checkpoint
// stores them as a safetensors file (exp_avg.<name>, exp_avg_sq.<name>).
//
//   p ← p · (1 − lr·wd)                 (decoupled decay, only in the decay group)
//   m ← β1·m + (1 − β1)·g ;  v ← β2·v + (1 − β2)·g²
//   p ← p − lr/(1 − β1^t) · m / (sqrt(v)/sqrt(1 − β2^t) + ε)
//
// With `lamb` the same moments drive LAMB (You et al. 2019, "Large Batch Optimization for Deep
// Learning"; as NVIDIA's BERT recipe runs it): the weight decay joins the update, and each tensor's
// step is scaled by its trust ratio ‖p‖/‖u‖ (1 when either norm is 0) — except biases and LayerNorm
// parameters, which get neither decay nor a trust ratio:
//   u ← (m/(1 − β1^t)) / (sqrt(v/(1 − β2^t)) + ε) + wd·p ;   p ← p − lr · ‖p‖/‖u‖ · u
// LAMB runs on LibTorch's multi-tensor (_foreach_) ops — it has no fused LAMB kernel — without host
// synchronisation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

namespace bertpt::engine {

// Which code performs the update; every choice computes the formula above (tested equal to 1e-6).
//   Auto:      Bertpt for fp32 contiguous CPU parameters, LibTorchFused for CUDA ones, TensorOps else.
//   Bertpt:    bertpt's one-pass CPU loop (adamw.cc); other tensors fall back to TensorOps.
//   LibTorchFused: at::_fused_adamw_ (torch.optim.AdamW(fused=True)): one multi-tensor kernel per
//              parameter group on CUDA, a vectorised loop on CPU; no host synchronisation.
//   TensorOps: torch.optim.AdamW's single-tensor path, ~8 tensor ops per parameter.
enum class AdamWKernel { Auto, Bertpt, LibTorchFused, TensorOps };

// --optim's kernel: "adamw_torch_fused", "adamw_torch", "adamw_bertpt", else Auto ("adamw", "lamb").
AdamWKernel adamw_kernel_named(const std::string& optim);

struct AdamWOptions {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
  AdamWKernel kernel = AdamWKernel::Auto;
  bool lamb = false;  // LAMB's layer-wise trust ratio (above); the kernel is then always TensorOps
};

// Hugging Face's rule: no decay for any parameter whose name contains "bias" or that belongs to a
// LayerNorm ("LayerNorm." in BERT's names; "norm." / "_norm." in ModernBERT's).
bool is_no_decay_parameter(const std::string& name);

class AdamW {
 public:
  // `named_parameters`: (HF name, parameter) pairs; each tensor once.
  AdamW(std::vector<std::pair<std::string, at::Tensor>> named_parameters, AdamWOptions options);

  // One update with learning rate `lr` from the parameters' .grad (parameters without a gradient
  // are skipped, as torch does). `found_inf` ([] fp32 on the parameters' device, 1 or 0; only when
  // skips_on_device()): when 1 the kernel leaves parameters and moments untouched — the non-finite
  // policy without a host sync (torch's GradScaler protocol). Call uncount_skipped() once the host
  // knows how many steps were skipped, so steps() stays the number of applied updates. `clip` ([] fp32
  // on the gradients' device, from clip_coefficient()): the gradient clipping folded into the update,
  // the same values as clip_grads() before step() — bertpt's CPU loop multiplies as it reads (one pass
  // over the gradients less), other kernels' .grad is scaled first.
  void step(double lr, const at::Tensor& found_inf = {}, const at::Tensor& clip = {});
  bool skips_on_device() const;
  void uncount_skipped(int64_t n);
  void zero_grad();

  int64_t steps() const { return step_; }
  // The kernel that updates most parameters (Auto resolved): "bertpt", "libtorch_fused", "tensor_ops",
  // or "lamb".
  std::string kernel_name() const;
  const AdamWOptions& options() const { return options_; }
  // Names of the parameters in each group (for tests and the run log).
  std::vector<std::string> decay_names() const;
  std::vector<std::string> no_decay_names() const;

  // The state as named fp32 CPU tensors ("exp_avg.<name>", "exp_avg_sq.<name>") for a checkpoint.
  std::vector<std::pair<std::string, at::Tensor>> state_tensors() const;
  // Restores state written by state_tensors(); BadInput naming `source` on a missing tensor or a
  // shape mismatch.
  void load_state(const std::vector<std::pair<std::string, at::Tensor>>& tensors, int64_t steps,
                  const std::string& source);

 private:
  struct Slot {
    std::string name;
    at::Tensor param, exp_avg, exp_avg_sq;
    at::Tensor step;         // [] fp32 on the parameter's device: at::_fused_adamw_ reads the step count here
    int64_t step_value = 0;  // what `step` holds (the host knows it: only step_fused changes it)
    bool decay = true;
  };
  AdamWKernel kernel_for(const at::Tensor& param, const at::Tensor& grad) const;
  void step_fused(const std::vector<Slot*>& slots, double lr, double weight_decay, const at::Tensor& found_inf);
  void step_lamb(const std::vector<Slot*>& slots, double lr, double bc1, double bc2);
  void clip_other_kernels(const at::Tensor& clip);
  std::vector<Slot> slots_;
  AdamWOptions options_;
  int64_t step_ = 0;
};

// The global L2 norm of the gradients of `parameters` (a 0-dim fp32 tensor on their device, no host
// sync), as torch.nn.utils.clip_grad_norm_ computes it.
at::Tensor global_grad_norm(const std::vector<at::Tensor>& parameters);
// min(1, max_norm / (norm + 1e-6)), [] on the norm's device (no host sync); undefined when max_norm <= 0.
at::Tensor clip_coefficient(const at::Tensor& norm, double max_norm);
// Scales every gradient by clip_coefficient(norm, max_norm) on the device (no host sync).
void clip_grads(const std::vector<at::Tensor>& parameters, const at::Tensor& norm, double max_norm);
// Multiplies each gradient by `coef` ([] fp32), in place: clip_grads' multiply.
void scale_grads(std::vector<at::Tensor> grads, const at::Tensor& coef);

}  // namespace bertpt::engine
