// The options of a training command (train, finetune), declared once by a visitor
// (common/options_json.h): the defaults, then --config's, then the flags given on the command line.
// Resuming a run, its checkpoint's own options stand in for the defaults and --config, by the library's
// one rule (engine::run_options in engine/resumed_options.h).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/option_flags.h"
#include "common/json_fields.h"
#include "engine/resumed_options.h"

namespace bertpt::cli {

using RunOptionRules = engine::ResumeRules;

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

// The run's options from the command line (engine::run_options: resuming, the checkpoint's with those
// given on top). `given_out` (optional) receives the options given.
template <class Options, class Visit>
Options resolve_run_options(CLI::App* cmd, const Options& parsed, Visit visit, const std::string& config_file,
                            const RunOptionRules& rules, nlohmann::json* given_out = nullptr) {
  const nlohmann::json given = given_run_options(cmd, parsed, visit, config_file, rules);
  if (given_out) *given_out = given;
  return engine::run_options<Options>(given, visit, rules);
}

}  // namespace bertpt::cli
