// One optimizer step of data-parallel training, the same for every task (pre-training, fine-tuning):
//   for each micro-batch m:  dropout re-seeded; forward under autocast (the task's, returning the
//                            sums of its loss and of its correct predictions); loss_sum / count;
//                            backward (gradients accumulate; the last micro-batch communicates)
//   gradients summed over ranks → the gradient of the mean loss over the whole global batch
//   global gradient norm → non-finite loss or norm: the update is skipped (the non-finite policy:
//   stop after max_nan_steps in a row); else clip to max_grad_norm and AdamW with the step's lr.
// Two ways to run it. With an optimizer that skips a non-finite update on the device (LibTorch's
// fused AdamW, the default on CUDA) nothing is read back: loss, accuracy, norm and the policy's
// counters stay on the device (DeviceStepStats) until the task asks for them (read_back), so the
// host never waits for the GPU. Otherwise the host reads them every step and skips the update itself.
// An allocation failure anywhere in the step becomes BadInput with the batch-size hint (failures.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "engine/adamw.h"
#include "engine/collectives.h"
#include "engine/run_defaults.h"
#include "engine/step_stats.h"

namespace bertpt::engine {

// What a task's forward returns for one micro-batch.
struct MicroOutput {
  at::Tensor loss_sum;  // [] fp32: the loss summed over the micro-batch's items (masked tokens, examples)
  at::Tensor correct;   // [] integer: items predicted right
};
// Runs micro-batch `micro`'s forward (called under autocast, with dropout already seeded).
using MicroForward = std::function<MicroOutput(int64_t micro)>;

struct StepRunnerOptions {
  c10::Device device = c10::Device(c10::kCPU);
  bool bf16 = false;
  double max_grad_norm = kDefaultMaxGradNorm;   // <= 0: no clipping
  int64_t max_nan_steps = kDefaultMaxNanSteps;  // consecutive non-finite steps before giving up
  int64_t per_device_batch_size = 0;            // for the out-of-memory message
  // The dropout stream of micro-step `micro` of step `step` on this rank: a pure function, so a
  // resumed run draws the same dropout masks as an uninterrupted one.
  std::function<uint64_t(int64_t step, int64_t micro)> dropout_seed;
};

struct StepInput {
  int64_t step = 0;  // 0-based: updates before this one
  int64_t micro_steps = 1;
  double count = 0;  // items the mean loss is over: all micro-batches of all ranks
  double lr = 0;
  bool log_step = false;        // ranks agree on stopping here (the host path agrees every step)
  bool read_back = false;       // the task needs this step's values on the host now
  bool stop_requested = false;  // this rank was asked to stop (a signal)
  bool poison = false;          // test hook: make this step's loss non-finite
  // When the step began (the task's batch fetch included), for the interval's seconds; default: now.
  std::chrono::steady_clock::time_point started{};
};

struct StepOutput {
  bool known = false;   // loss_sum, correct, grad_norm and finite hold this step's values
  double loss_sum = 0;  // over the global batch
  double correct = 0;
  double grad_norm = 0;  // before clipping
  bool finite = true;    // the update was applied
  bool stop = false;     // the ranks agreed to stop after this step
};

// The finite steps' totals since the last take_interval(), for a log record.
struct StepInterval {
  int64_t steps = 0, good_steps = 0;
  double loss_sum = 0, correct = 0, count = 0;  // over the good steps
  double last_grad_norm = 0, last_lr = 0, seconds = 0;
};

class StepRunner {
 public:
  // `params` in the optimizer's order; `skipped` / `consecutive_bad`: counters of a resumed run.
  StepRunner(StepRunnerOptions options, std::vector<at::Tensor> params, AdamW& optimizer, Collectives& collectives,
             std::function<void(const std::string&)> message, int64_t skipped = 0, int64_t consecutive_bad = 0);

  // Runs one optimizer step. BadInput when out of memory or when the non-finite policy gives up.
  StepOutput run(const StepInput& input, const MicroForward& forward);

  // The totals since the last call (reading the device-side counters first); starts a new interval.
  StepInterval take_interval(int64_t through_step);
  // Reads the device-side counters into the interval (before a checkpoint records the counters).
  void settle(int64_t through_step);

  // The interval so far (settled parts only: call settle() first). A checkpoint saves it and a resumed
  // run restores it, so the first log record after a resume covers its whole logging window.
  const StepInterval& interval() const { return interval_; }
  void restore_interval(const StepInterval& interval) { interval_ = interval; }

  int64_t skipped_steps() const { return skipped_; }
  int64_t consecutive_bad_steps() const { return consecutive_bad_; }
  bool reads_back_every_step() const { return !device_step_; }

 private:
  struct Sums {
    at::Tensor loss, correct;  // [] on the device, summed over this rank's micro-batches
  };
  Sums forward_backward(const StepInput& input, const MicroForward& forward);
  StepOutput finish_on_device(const StepInput& input, const Sums& sums, const at::Tensor& norm);
  StepOutput finish_on_host(const StepInput& input, const Sums& sums, const at::Tensor& norm);
  DeviceStepStats::Totals settle_device_stats(int64_t through_step);

  StepRunnerOptions o_;
  std::vector<at::Tensor> params_;
  AdamW& optimizer_;
  Collectives& coll_;
  std::function<void(const std::string&)> message_;
  bool device_step_;
  DeviceStepStats device_stats_;
  int64_t skipped_, consecutive_bad_;
  StepInterval interval_;
  int64_t unsettled_ = 0;  // device-path steps not yet read into the interval
};

}  // namespace bertpt::engine
