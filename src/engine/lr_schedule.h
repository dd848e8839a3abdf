// Learning-rate schedules, as functions of the optimizer step (0-based: the lr used by the update
// that step `step` performs), matching transformers' get_scheduler:
//   linear:     warmup from 0 to the peak over `warmup` steps, then linear decay to 0 at `total`
//               (the guide's: --warmup-steps 0, so it starts at the peak)
//   constant:   warmup, then the peak
//   cosine:     warmup, then half a cosine from the peak to 0 at `total`
//   polynomial: warmup, then (peak - lr_end) * (1 - progress)^power + lr_end, lr_end after `total`
//               (NVIDIA's BERT recipe: power 1 with LAMB; HF's get_polynomial_decay_schedule_with_warmup)
//   warmup_stable_decay: linear warmup, the peak, then over the last `decay_steps` a linear, cosine
//               or 1-sqrt decay to min_lr_ratio * peak (HF's get_wsd_schedule; "trapezoidal" when
//               linear)
// Pure C++, no LibTorch.
#pragma once

#include <cstdint>
#include <string>

namespace bertpt::engine {

enum class LrScheduleKind { Linear, Constant, Cosine, Polynomial, WarmupStableDecay };
enum class DecayShape { Linear, Cosine, OneMinusSqrt };

// "linear", "constant", "cosine", "polynomial", "warmup_stable_decay"; BadInput otherwise.
LrScheduleKind parse_lr_schedule(const std::string& name);
const char* lr_schedule_name(LrScheduleKind kind);
// "linear", "cosine", "1-sqrt"; BadInput otherwise.
DecayShape parse_decay_shape(const std::string& name);

struct LrSchedule {
  LrScheduleKind kind = LrScheduleKind::Linear;
  double peak = 5e-5;
  int64_t warmup = 0;
  int64_t total = 100000;
  // polynomial
  double lr_end = 1e-7;
  double power = 1.0;
  // warmup_stable_decay
  int64_t decay_steps = 0;
  DecayShape decay_shape = DecayShape::Cosine;
  double min_lr_ratio = 0.0;

  double at(int64_t step) const;
};

}  // namespace bertpt::engine
