// Resuming continues the run that was, for every task. The options of a resumed run are the ones its
// checkpoint saved, with those given now on top; a given option whose value differs from the saved
// one is refused in one line naming it, unless the task lets it change on resume (extending
// --max-steps, logging, evaluation, saving, threads, the device ...). Options not given are the run's
// own, never the defaults. (`prepare` keeps its own rule for datasets: data/prepare.h.)
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace bertpt::engine {

// The checkpoint `resume` names: for "auto" the latest complete one in `output_dir` ("" when there is
// none: a new run); "" for ""; otherwise `resume` itself.
std::string resume_checkpoint(const std::string& resume, const std::string& output_dir);

// The options of the run being resumed: field `key` of CHECKPOINT/trainer_state.json (BadInput naming
// the file when it is missing or damaged).
nlohmann::json saved_options(const std::string& checkpoint, const char* key);

// `saved` with `given` on top. BadInput naming the first given option (as its flag) whose value differs
// from the saved one and is not in `may_change`, with both values and the checkpoint.
nlohmann::json resumed_options(const nlohmann::json& saved, const nlohmann::json& given,
                               const std::set<std::string>& may_change, const std::string& checkpoint);

}  // namespace bertpt::engine
