// A training step's contribution to the log, kept on the device until the trainer reads it at a
// logging step: one device-to-host copy per logging interval instead of one per step, so a CUDA
// step never waits for the GPU (the non-finite policy runs on the device, see AdamW::step).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace bertpt::engine {

class DeviceStepStats {
 public:
  // `streak`: consecutive non-finite steps so far (from a resumed checkpoint).
  DeviceStepStats(c10::Device device, int64_t streak);

  // One step. ok: [] bool, finite loss and gradient norm; loss_sum, correct: [] this step's sums over
  // the global batch's masked positions (`masked` of them); norm: [] the gradient norm.
  void add(const at::Tensor& ok, const at::Tensor& loss_sum, const at::Tensor& correct, double masked,
           const at::Tensor& norm);

  struct Totals {
    int64_t steps = 0, good_steps = 0;             // since the last read
    double loss_sum = 0, correct = 0, masked = 0;  // over the good steps
    double last_norm = 0;
    int64_t streak = 0;        // consecutive non-finite steps up to now
    int64_t worst_streak = 0;  // the longest run of them since the last read
  };
  // The one host synchronisation; starts a new interval.
  Totals read_and_reset();

 private:
  at::Tensor sums_;    // [4] fp64 on the device: good steps, loss sum, correct, masked (good steps only)
  at::Tensor streak_;  // [] fp64: consecutive non-finite steps
  at::Tensor worst_;   // [] fp64: the longest streak since the last read
  at::Tensor norm_;    // [] fp32: the last gradient norm
  int64_t steps_ = 0;
};

}  // namespace bertpt::engine
