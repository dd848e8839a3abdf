#include "engine/step_stats.h"

#include <ATen/ATen.h>

namespace bertpt::engine {

DeviceStepStats::DeviceStepStats(c10::Device device, int64_t streak) {
  const auto f64 = at::TensorOptions().device(device).dtype(at::kDouble);
  sums_ = at::zeros({4}, f64);
  streak_ = at::full({}, double(streak), f64);
  worst_ = streak_.clone();
  norm_ = at::zeros({}, f64.dtype(at::kFloat));
}

void DeviceStepStats::add(const at::Tensor& ok, const at::Tensor& loss_sum, const at::Tensor& correct, double masked,
                          const at::Tensor& norm) {
  ++steps_;
  const at::Tensor good = ok.to(at::kDouble);  // 1 or 0
  // where(), not a product: a NaN loss times 0 is NaN.
  const at::Tensor loss = at::where(ok, loss_sum.to(at::kDouble), at::zeros_like(good));
  sums_ += at::stack({good, loss, good * correct.to(at::kDouble), good * masked});
  streak_ = (streak_ + 1.0) * (1.0 - good);
  worst_ = at::maximum(worst_, streak_);
  norm_.copy_(norm);
}

DeviceStepStats::Totals DeviceStepStats::read_and_reset() {
  const at::Tensor host = at::cat({sums_, streak_.view({1}), worst_.view({1}), norm_.to(at::kDouble).view({1})}).cpu();
  const double* h = host.data_ptr<double>();
  Totals t;
  t.steps = steps_;
  t.good_steps = int64_t(h[0]);
  t.loss_sum = h[1];
  t.correct = h[2];
  t.masked = h[3];
  t.streak = int64_t(h[4]);
  t.worst_streak = int64_t(h[5]);
  t.last_norm = h[6];
  sums_.zero_();
  worst_.copy_(streak_);
  steps_ = 0;
  return t;
}

}  // namespace bertpt::engine
