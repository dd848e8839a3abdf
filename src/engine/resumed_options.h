// Resuming continues the run that was, for every task. The options of a resumed run are the ones its
// checkpoint saved, with those given now on top; a given option whose value differs from the saved
// one is refused in one line naming it, unless the task lets it change on resume (extending
// --max-steps, logging, evaluation, saving, threads, the device ...). Options not given are the run's
// own, never the defaults. (`prepare` keeps its own rule for datasets: data/prepare.h.)
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "common/options_json.h"

namespace bertpt::engine {

// The checkpoint `resume` names: for "auto" the latest complete one in `output_dir` ("" when there is
// none: a new run); "" for ""; otherwise `resume` itself.
std::string resume_checkpoint(const std::string& resume, const std::string& output_dir);

// The options a checkpoint's run had: field "options" of its trainer state `state` (pre-training
// checkpoints of earlier bertpt versions kept them as "config", which is read too). BadInput naming the file when
// the field is missing or not an object.
nlohmann::json options_in_state(const nlohmann::json& state, const std::string& checkpoint);
// The same, of CHECKPOINT/trainer_state.json (BadInput naming the file when it is missing or damaged).
nlohmann::json saved_options(const std::string& checkpoint);

// `saved` with `given` on top. BadInput naming the first given option (as its flag) whose value differs
// from the saved one and is not in `may_change`, with both values and the checkpoint.
nlohmann::json resumed_options(const nlohmann::json& saved, const nlohmann::json& given,
                               const std::set<std::string>& may_change, const std::string& checkpoint);

// What a task says of resuming its runs.
struct ResumeRules {
  const char* command;                                // "train": names the options in messages
  std::set<std::string> may_change;                   // options a resumed run may change
  std::function<void(nlohmann::json&)> adjust_saved;  // optional: drops what is derived at every start
};

// The run's options from those `given` (JSON, as options_to_json writes them: the flags and --config
// of a command line, or a library caller's): for a new run, the defaults with `given` on top; when
// their "resume" names a checkpoint (or "auto" finds one in their "output_dir"), the checkpoint's
// saved options with `given` on top, refused as resumed_options() refuses. Visit declares Options
// (common/options_json.h).
template <class Options, class Visit>
Options run_options(const nlohmann::json& given, Visit visit, const ResumeRules& rules) {
  Options opts;
  apply_options_json(opts, visit, given, "the command line", rules.command);
  const std::string checkpoint = resume_checkpoint(opts.resume, opts.output_dir);
  if (checkpoint.empty()) return opts;
  nlohmann::json saved = saved_options(checkpoint);
  if (rules.adjust_saved) rules.adjust_saved(saved);
  Options resumed;
  apply_options_json(resumed, visit, resumed_options(saved, given, rules.may_change, checkpoint),
                     checkpoint + "/trainer_state.json", rules.command);
  return resumed;
}

}  // namespace bertpt::engine
