#include "engine/lr_schedule.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace bertpt::engine {

LrScheduleKind parse_lr_schedule(const std::string& name) {
  if (name == "linear") return LrScheduleKind::Linear;
  if (name == "constant") return LrScheduleKind::Constant;
  if (name == "cosine") return LrScheduleKind::Cosine;
  if (name == "polynomial") return LrScheduleKind::Polynomial;
  if (name == "warmup_stable_decay") return LrScheduleKind::WarmupStableDecay;
  throw BadInput("unknown learning-rate schedule '" + name + "'",
                 "use linear, constant, cosine, polynomial or warmup_stable_decay");
}

const char* lr_schedule_name(LrScheduleKind kind) {
  switch (kind) {
    case LrScheduleKind::Linear: return "linear";
    case LrScheduleKind::Constant: return "constant";
    case LrScheduleKind::Cosine: return "cosine";
    case LrScheduleKind::Polynomial: return "polynomial";
    case LrScheduleKind::WarmupStableDecay: return "warmup_stable_decay";
  }
  return "?";
}

DecayShape parse_decay_shape(const std::string& name) {
  if (name == "linear") return DecayShape::Linear;
  if (name == "cosine") return DecayShape::Cosine;
  if (name == "1-sqrt") return DecayShape::OneMinusSqrt;
  throw BadInput("unknown decay type '" + name + "'", "use linear, cosine or 1-sqrt");
}

namespace {

// transformers' _get_wsd_scheduler_lambda with linear warmup and num_cycles 0.5, as a factor of the peak.
double wsd_factor(const LrSchedule& s, int64_t step) {
  const int64_t stable = std::max<int64_t>(0, s.total - s.warmup - s.decay_steps);
  if (step < s.warmup) {
    double progress = double(step) / double(std::max<int64_t>(1, s.warmup));
    return std::max(0.0, progress * (1.0 - s.min_lr_ratio) + s.min_lr_ratio);
  }
  if (step < s.warmup + stable) return 1.0;
  if (step >= s.warmup + stable + s.decay_steps) return s.min_lr_ratio;
  double progress = double(step - s.warmup - stable) / double(std::max<int64_t>(1, s.decay_steps));
  double f = s.decay_shape == DecayShape::Linear   ? 1.0 - progress
             : s.decay_shape == DecayShape::Cosine ? 0.5 * (1.0 + std::cos(M_PI * progress))
                                                   : 1.0 - std::sqrt(progress);
  return std::max(0.0, f * (1.0 - s.min_lr_ratio) + s.min_lr_ratio);
}

// transformers' _get_polynomial_decay_schedule_with_warmup_lr_lambda, times the peak.
double polynomial_lr(const LrSchedule& s, int64_t step) {
  if (step > s.total) return s.lr_end;
  const double decay_steps = double(s.total - s.warmup);
  const double remaining = 1.0 - double(step - s.warmup) / decay_steps;
  return (s.peak - s.lr_end) * std::pow(remaining, s.power) + s.lr_end;
}

}  // namespace

double LrSchedule::at(int64_t step) const {
  // transformers: lr_lambda(current_step) with current_step = the number of updates done so far.
  if (kind == LrScheduleKind::WarmupStableDecay) return peak * wsd_factor(*this, step);
  if (step < warmup) return peak * double(step) / double(std::max<int64_t>(1, warmup));
  if (kind == LrScheduleKind::Constant) return peak;
  if (kind == LrScheduleKind::Polynomial) return polynomial_lr(*this, step);
  const double span = double(std::max<int64_t>(1, total - warmup));
  const double progress = double(step - warmup) / span;
  if (kind == LrScheduleKind::Linear) return peak * std::max(0.0, double(total - step) / span);
  // Cosine, half a period (num_cycles = 0.5).
  return peak * std::max(0.0, 0.5 * (1.0 + std::cos(M_PI * std::min(1.0, progress))));
}

}  // namespace bertpt::engine
