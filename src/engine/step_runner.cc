#include "engine/step_runner.h"

#include <cmath>
#include <limits>

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include "engine/failures.h"
#include "model/torch_compat.h"

namespace bertpt::engine {

using Clock = std::chrono::steady_clock;

StepRunner::StepRunner(StepRunnerOptions options, std::vector<at::Tensor> params, AdamW& optimizer,
                       Collectives& collectives, std::function<void(const std::string&)> message, int64_t skipped,
                       int64_t consecutive_bad)
    : o_(std::move(options)),
      params_(std::move(params)),
      optimizer_(optimizer),
      coll_(collectives),
      message_(std::move(message)),
      device_step_(optimizer.skips_on_device()),
      device_stats_(o_.device, consecutive_bad),
      skipped_(skipped),
      consecutive_bad_(consecutive_bad) {}

StepOutput StepRunner::run(const StepInput& in, const MicroForward& forward) {
  const Clock::time_point started = in.started == Clock::time_point{} ? Clock::now() : in.started;
  StepOutput out;
  try {
    const Sums sums = forward_backward(in, forward);
    RECORD_USER_SCOPE("step.optimizer");  // a profiler's range (engine/step_trace.h): norm, clipping, AdamW
    const at::Tensor norm = global_grad_norm(params_);  // [] over the summed gradients: equal on every rank
    out = device_step_ ? finish_on_device(in, sums, norm) : finish_on_host(in, sums, norm);
  } catch (const std::exception& e) {
    if (is_out_of_memory(e)) throw_out_of_memory(o_.per_device_batch_size, o_.device.str());
    throw;
  }
  interval_.steps += 1;
  interval_.last_lr = in.lr;
  interval_.seconds += std::chrono::duration<double>(Clock::now() - started).count();
  return out;
}

StepRunner::Sums StepRunner::forward_backward(const StepInput& in, const MicroForward& forward) {
  optimizer_.zero_grad();
  const auto on_device = at::TensorOptions().device(o_.device);
  Sums sums{at::zeros({}, on_device.dtype(at::kFloat)), at::zeros({}, on_device.dtype(at::kLong))};
  for (int64_t m = 0; m < in.micro_steps; ++m) {
    at::manual_seed(o_.dropout_seed(in.step, m));
    MicroOutput mo;
    at::Tensor loss;  // [] this micro-batch's share of the global mean loss
    {
      torch_compat::AutocastGuard autocast(o_.device.type(), at::kBFloat16, o_.bf16);
      mo = forward(m);
      loss = mo.loss_sum * (1.0 / std::max(1.0, in.count));
    }
    if (in.poison) loss = loss * std::numeric_limits<double>::quiet_NaN();
    coll_.begin_backward(m == in.micro_steps - 1);
    loss.backward();
    sums.loss += in.poison ? loss.detach() : mo.loss_sum.detach();
    sums.correct += mo.correct;
  }
  coll_.finish_gradients();
  return sums;
}

// Nothing read back: the update is skipped on the device when the loss or the norm is not finite.
StepOutput StepRunner::finish_on_device(const StepInput& in, const Sums& s, const at::Tensor& norm) {
  std::vector<at::Tensor> sums = {s.loss.to(at::kDouble), s.correct.to(at::kDouble)};
  coll_.sum_on_device(sums);
  const at::Tensor ok = at::isfinite(sums[0]).logical_and(at::isfinite(norm));  // [] bool
  clip_grads(params_, norm, o_.max_grad_norm);
  optimizer_.step(in.lr, ok.logical_not().to(at::kFloat));
  device_stats_.add(ok, sums[0], sums[1], in.count, norm);
  ++unsettled_;
  StepOutput out;
  // One rank honours a signal at once; several must agree, which they do at logging steps.
  if (coll_.world_size() == 1) {
    out.stop = in.stop_requested;
  } else if (in.log_step) {
    std::vector<double> flag = {in.stop_requested ? 1.0 : 0.0};
    coll_.sum(flag);
    out.stop = flag[0] > 0;
  }
  if (in.read_back || in.log_step || out.stop) {
    const DeviceStepStats::Totals t = settle_device_stats(in.step + 1);
    if (t.steps == 1) {  // this step's own values (every step when the task reads back every step)
      out.known = true;
      out.finite = t.good_steps == 1;
      out.loss_sum = out.finite ? t.loss_sum : std::nan("");
      out.correct = t.correct;
    }
    out.grad_norm = t.last_norm;
  }
  return out;
}

// The one host synchronisation of the step: loss, accuracy, norm; the host skips a bad update.
StepOutput StepRunner::finish_on_host(const StepInput& in, const Sums& s, const at::Tensor& norm) {
  const at::Tensor host = at::stack({s.loss.to(at::kDouble), s.correct.to(at::kDouble), norm.to(at::kDouble)}).cpu();
  const double* h = host.data_ptr<double>();
  std::vector<double> sums = {h[0], h[1], in.stop_requested ? 1.0 : 0.0};
  coll_.sum(sums);
  StepOutput out;
  out.known = true;
  out.loss_sum = sums[0];
  out.correct = sums[1];
  out.grad_norm = h[2];
  out.stop = sums[2] > 0;
  out.finite = std::isfinite(out.loss_sum) && std::isfinite(out.grad_norm);
  if (out.finite) {
    consecutive_bad_ = 0;
    optimizer_.step(in.lr, {}, clip_coefficient(norm, o_.max_grad_norm));  // clipping folded into the update
    interval_.good_steps += 1;
    interval_.loss_sum += out.loss_sum;
    interval_.correct += out.correct;
    interval_.count += in.count;
  } else {
    ++skipped_;
    ++consecutive_bad_;
    optimizer_.zero_grad();
    message_("step " + std::to_string(in.step + 1) + ": non-finite " +
             (std::isfinite(out.loss_sum) ? "gradient" : "loss") + ", update skipped (" +
             std::to_string(consecutive_bad_) + " in a row)");
    if (consecutive_bad_ >= o_.max_nan_steps) throw_diverged(consecutive_bad_, in.step + 1);
  }
  interval_.last_grad_norm = out.grad_norm;
  return out;
}

// Reads the device-side counters into the interval and applies the non-finite policy for them.
DeviceStepStats::Totals StepRunner::settle_device_stats(int64_t through_step) {
  const DeviceStepStats::Totals t = device_stats_.read_and_reset();
  unsettled_ = 0;
  const int64_t bad = t.steps - t.good_steps;
  optimizer_.uncount_skipped(bad);
  skipped_ += bad;
  consecutive_bad_ = t.streak;
  interval_.good_steps += t.good_steps;
  interval_.loss_sum += t.loss_sum;
  interval_.correct += t.correct;
  interval_.count += t.masked;
  interval_.last_grad_norm = t.last_norm;
  if (bad > 0) {
    message_(std::to_string(bad) + " of the " + std::to_string(t.steps) + " steps up to step " +
             std::to_string(through_step) + " had a non-finite loss or gradient; their updates were skipped");
  }
  if (t.worst_streak >= o_.max_nan_steps) throw_diverged(t.worst_streak, through_step);
  return t;
}

void StepRunner::settle(int64_t through_step) {
  if (device_step_ && unsettled_ > 0) settle_device_stats(through_step);
}

StepInterval StepRunner::take_interval(int64_t through_step) {
  settle(through_step);
  StepInterval taken = interval_;
  interval_ = StepInterval{};
  return taken;
}

}  // namespace bertpt::engine
