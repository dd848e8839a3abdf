#include "engine/log_window.h"

#include <cmath>

#include "common/json_fields.h"

namespace bertpt::engine {

nlohmann::json log_window_json(const StepInterval& iv, double work) {
  return {{"steps", iv.steps},     {"good_steps", iv.good_steps}, {"loss_sum", iv.loss_sum},
          {"correct", iv.correct}, {"count", iv.count},           {"last_grad_norm", iv.last_grad_norm},
          {"last_lr", iv.last_lr}, {"seconds", iv.seconds},       {"flops", work}};
}

StepInterval log_window_from_json(const nlohmann::json& j, const std::string& checkpoint, double& work) {
  const JsonFields f(j, checkpoint + "/trainer_state.json", "log_window");
  StepInterval iv;
  iv.steps = f.i64("steps");
  iv.good_steps = f.i64("good_steps");
  iv.loss_sum = f.number("loss_sum");
  iv.correct = f.number("correct");
  iv.count = f.number("count");
  // A non-finite norm (the window's last step was skipped) is written as null.
  iv.last_grad_norm = f.any("last_grad_norm").is_null() ? std::nan("") : f.number("last_grad_norm");
  iv.last_lr = f.number("last_lr");
  iv.seconds = f.number("seconds");
  work = f.number("flops");
  return iv;
}

}  // namespace bertpt::engine
