#include "mlm/run_meter.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "perf/cost.h"

namespace bertpt::mlm {

namespace {

// $ per hour of the machine: --price-per-hour, or --instance's row of the price table.
double resolve_price(const PretrainOptions& o) {
  if (o.instance.empty()) return o.price_per_hour;
  const auto table = perf::load_price_table(perf::default_price_table_path());
  return perf::find_instance(table, o.instance).price_per_hour;
}

}  // namespace

RunMeter::RunMeter(const PretrainOptions& o, const model::BertConfig& config, const std::string& device, bool bf16,
                   bool main, int world)
    : peak_tflops_given_(o.peak_tflops), world_(world), price_(resolve_price(o)), flops_(config) {
  if (main) peak_ = perf::peak_flops(device, bf16, o.peak_tflops);
}

void RunMeter::resume(double elapsed_sec, double cost_usd, double window_flops) {
  prior_elapsed_ = elapsed_ = elapsed_sec;
  prior_cost_ = cost_usd;
  window_flops_ = window_flops;
}

void RunMeter::step(double seconds, double global_batch, double seq_len, double masked) {
  elapsed_ += seconds;
  window_flops_ += flops_.train_flops(global_batch, seq_len, masked);
}

std::string RunMeter::fill_record(nlohmann::json& r, const engine::StepInterval& iv, double G, double T,
                                  int64_t steps_left) {
  const double per_step = iv.seconds / double(std::max<int64_t>(1, iv.steps));
  const double eta = per_step * double(steps_left);
  r["tokens_per_sec"] = double(iv.steps) * G * T / iv.seconds;
  r["seq_per_sec"] = double(iv.steps) * G / iv.seconds;
  // The window's FLOPs count the global batch, so the peak is that of all `world` devices.
  const double mfu = peak_.flops_per_sec > 0 ? window_flops_ / iv.seconds / (peak_.flops_per_sec * world_) : 0.0;
  r["mfu"] = mfu;
  r["step_time_sec"] = per_step;
  r["world_size"] = world_;
  r["model_flops_per_sec"] = window_flops_ / iv.seconds;
  r["elapsed_sec"] = elapsed_;
  r["eta_sec"] = eta;
  if (priced()) {
    r["cost_usd"] = cost_so_far();
    r["projected_cost_usd"] = cost_so_far() + price_ * eta / 3600.0;
  }
  window_flops_ = 0;
  return mfu > 1.0 && !std::exchange(peak_exceeded_, true) ? peak_warning() : std::string();
}

// An MFU above 100%: the peak is lower than what the run reaches. A CPU's is measured at start-up
// (perf/flops.h), so other work loading the machine then makes it too low.
std::string RunMeter::peak_warning() const {
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f GFLOP/s", peak_.flops_per_sec / 1e9);
  return peak_tflops_given_ > 0 ? "MFU above 100%: --peak-tflops (" + std::string(rate) +
                                      " per device) is below the rate this run reaches; give the device's peak"
                                : "MFU above 100%: the peak it is relative to (" + peak_.source + ", " + rate +
                                      ") was measured while other work loaded the machine; MFU is too high, "
                                      "give the peak with --peak-tflops";
}

}  // namespace bertpt::mlm
