// The steps since a run's last log record, as a checkpoint saves them (trainer_state.json
// "log_window"): a run resumed between two log records then logs the true window, not only its own
// part of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/step_runner.h"

namespace bertpt::engine {

// `work`: what the task counts over the window besides the step runner (pre-training: model FLOPs).
nlohmann::json log_window_json(const StepInterval& interval, double work);

// The window of CHECKPOINT/trainer_state.json's `j`; BadInput naming the file and field when damaged.
StepInterval log_window_from_json(const nlohmann::json& j, const std::string& checkpoint, double& work);

}  // namespace bertpt::engine
