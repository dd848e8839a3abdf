// CHECKPOINT/trainer_state.json read and checked, without LibTorch (so the fuzzers reach it): its
// format and version, the integers every task writes ("step", "optimizer_steps"), and the keys of
// the task's own part. The trainers then read their fields through common/json_fields.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace bertpt::engine {

constexpr const char* kTrainerStateFormat = "bertpt-trainer-state";
constexpr int kTrainerStateVersion = 1;

// The parsed file `text` (named `path` in errors). Throws BadInput naming `path` when it is not
// JSON, not a bertpt trainer state of this version, lacks an integer "step" / "optimizer_steps", or
// lacks one of `task_fields`.
nlohmann::json parse_trainer_state(std::string_view text, const std::string& path,
                                   const std::vector<std::string>& task_fields = {});

}  // namespace bertpt::engine
