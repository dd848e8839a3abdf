// One training step recorded by LibTorch's profiler (Kineto, as torch.profiler in Python) and saved as
// a Chrome trace (chrome://tracing, ui.perfetto.dev): every ATen operator with its self time, the
// autograd engine's backward ranges, and the StepRunner's "step.optimizer" range (gradient norm,
// clipping, AdamW). bench/profile_step.py reads it next to a transformers trace. On CUDA the
// device's kernels are recorded too.
#pragma once

#include <string>

#include <c10/core/Device.h>

namespace bertpt::engine {

class StepTrace {
 public:
  StepTrace(std::string path, const c10::Device& device);  // starts recording
  ~StepTrace();                                            // stops without saving if save() was not called
  StepTrace(const StepTrace&) = delete;
  StepTrace& operator=(const StepTrace&) = delete;
  void save();  // stops recording; writes the trace to a temporary file, renamed to `path` when complete

 private:
  std::string path_;
  bool recording_ = false;
};

}  // namespace bertpt::engine
