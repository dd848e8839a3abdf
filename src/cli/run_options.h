// The options of a training command (train, finetune), declared once by a visitor
// (common/options_json.h): the defaults, then --config's, then the flags given on the command line.
// Resuming a run, its checkpoint's own options stand in for the defaults and --config: a given option
// that differs from the run's is refused unless the task lets it change (engine/resumed_options.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli/option_flags.h"
#include "common/json_fields.h"
#include "engine/resumed_options.h"

namespace bertpt::cli {

struct RunOptionRules {
  const char* command;                                // "train": names the options in messages
  const char* saved_key;                              // the field of trainer_state.json that holds the run's options
  std::set<std::string> may_change;                   // options a resumed run may change
  std::function<void(nlohmann::json&)> adjust_saved;  // optional: drops what is derived at every start
};

// The options given: --config's (checked against the declaration), then the flags on `cmd`.
template <class Options, class Visit>
nlohmann::json given_run_options(CLI::App* cmd, const Options& parsed, Visit visit, const std::string& config_file,
                                 const RunOptionRules& rules) {
  nlohmann::json given = nlohmann::json::object();
  if (!config_file.empty()) {
    const nlohmann::json config = read_json_file(config_file, std::string("a JSON object of ") + rules.command +
                                                                  " options (keys as the flags, '_' for '-')");
    Options scratch;
    apply_options_json(scratch, visit, config, config_file, rules.command);  // unknown keys, wrong types
    const nlohmann::json all = options_to_json(scratch, visit);
    for (const auto& item : config.items()) {
      const std::string key = option_key(item.key());
      given[key] = all[key];
    }
  }
  const nlohmann::json flags = given_options(cmd, parsed, visit);  // named: items() refers into it
  for (const auto& [key, value] : flags.items()) given[key] = value;
  return given;
}

template <class Options, class Visit>
Options resolve_run_options(CLI::App* cmd, const Options& parsed, Visit visit, const std::string& config_file,
                            const RunOptionRules& rules) {
  const nlohmann::json given = given_run_options(cmd, parsed, visit, config_file, rules);
  Options opts;
  apply_options_json(opts, visit, given, "the command line", rules.command);
  const std::string checkpoint = engine::resume_checkpoint(opts.resume, opts.output_dir);
  if (checkpoint.empty()) return opts;
  nlohmann::json saved = engine::saved_options(checkpoint, rules.saved_key);
  if (rules.adjust_saved) rules.adjust_saved(saved);
  Options resumed;
  apply_options_json(resumed, visit, engine::resumed_options(saved, given, rules.may_change, checkpoint),
                     checkpoint + "/trainer_state.json", rules.command);
  return resumed;
}

}  // namespace bertpt::cli
