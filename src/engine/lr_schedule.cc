#include "engine/lr_schedule.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace bertpt::engine {

LrScheduleKind parse_lr_schedule(const std::string& name) {
  if (name == "linear") return LrScheduleKind::Linear;
  if (name == "constant") return LrScheduleKind::Constant;
  if (name == "cosine") return LrScheduleKind::Cosine;
  throw BadInput("unknown learning-rate schedule '" + name + "'", "use linear, constant or cosine");
}

const char* lr_schedule_name(LrScheduleKind kind) {
  switch (kind) {
    case LrScheduleKind::Linear: return "linear";
    case LrScheduleKind::Constant: return "constant";
    case LrScheduleKind::Cosine: return "cosine";
  }
  return "?";
}

double LrSchedule::at(int64_t step) const {
  // transformers: lr_lambda(current_step) with current_step = the number of updates done so far.
  if (step < warmup) return peak * double(step) / double(std::max<int64_t>(1, warmup));
  if (kind == LrScheduleKind::Constant) return peak;
  const double span = double(std::max<int64_t>(1, total - warmup));
  const double progress = double(step - warmup) / span;
  if (kind == LrScheduleKind::Linear) return peak * std::max(0.0, double(total - step) / span);
  // Cosine, half a period (num_cycles = 0.5).
  return peak * std::max(0.0, 0.5 * (1.0 + std::cos(M_PI * std::min(1.0, progress))));
}

}  // namespace bertpt::engine
