// Learning-rate schedules, as functions of the optimizer step (0-based: the lr used by the update
// that step `step` performs), matching transformers' get_scheduler:
//   linear:   warmup from 0 to the peak over `warmup` steps, then linear decay to 0 at `total`
//             (the guide's: --warmup-steps 0, so it starts at the peak)
//   constant: warmup, then the peak
//   cosine:   warmup, then half a cosine from the peak to 0 at `total`
// Pure C++, no LibTorch.
#pragma once

#include <cstdint>
#include <string>

namespace bertpt::engine {

enum class LrScheduleKind { Linear, Constant, Cosine };

// "linear", "constant", "cosine"; BadInput otherwise.
LrScheduleKind parse_lr_schedule(const std::string& name);
const char* lr_schedule_name(LrScheduleKind kind);

struct LrSchedule {
  LrScheduleKind kind = LrScheduleKind::Linear;
  double peak = 5e-5;
  int64_t warmup = 0;
  int64_t total = 100000;

  double at(int64_t step) const;
};

}  // namespace bertpt::engine
