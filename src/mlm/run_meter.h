// A pre-training run's meter: its training time (the whole run's, across resumes), the model FLOPs
// of the current log window (perf/flops.h), MFU against the devices' peak, and the cost at the
// machine's price (--price-per-hour or --instance).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/step_runner.h"
#include "mlm/pretrain_options.h"
#include "model/bert_config.h"
#include "perf/flops.h"

namespace bertpt::mlm {

class RunMeter {
 public:
  // The price and, on the main rank, the device's peak (measured on a CPU, perf/flops.h).
  RunMeter(const PretrainOptions& o, const model::BertConfig& config, const std::string& device, bool bf16, bool main,
           int world);

  // A resumed run's time and cost so far (trainer_state.json), and the FLOPs of its log window.
  void resume(double elapsed_sec, double cost_usd, double window_flops);
  // One optimizer step of `seconds` on a global batch of sequences of `seq_len` tokens, `masked` predicted.
  void step(double seconds, double global_batch, double seq_len, double masked);

  double elapsed() const { return elapsed_; }
  double window_flops() const { return window_flops_; }
  bool priced() const { return price_ > 0; }
  double cost_so_far() const { return prior_cost_ + price_ * (elapsed_ - prior_elapsed_) / 3600.0; }
  const perf::PeakFlops& peak() const { return peak_; }
  const perf::BertFlops& flops() const { return flops_; }

  // The log record's speed and cost fields for the window `iv` (ending `steps_left` steps before the
  // end), and a new window. Returns a warning the first time MFU exceeds 100% (the peak is too low), else "".
  std::string fill_record(nlohmann::json& r, const engine::StepInterval& iv, double global_batch, double seq_len,
                          int64_t steps_left);

 private:
  std::string peak_warning() const;

  double peak_tflops_given_;
  int world_;
  double price_ = 0;
  perf::PeakFlops peak_;
  perf::BertFlops flops_;
  double prior_elapsed_ = 0, prior_cost_ = 0, elapsed_ = 0;
  double window_flops_ = 0;
  bool peak_exceeded_ = false;  // said once: an MFU above 100% means the peak is too low
};

}  // namespace bertpt::mlm
