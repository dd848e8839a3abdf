// The flags of a command whose options are declared once by a visitor (common/options_json.h): one
// flag per option, --NAME (a switch that is on by default: --no-NAME), and the JSON of those given on
// the command line, which win over --config and over the run being resumed.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "common/options_json.h"

namespace bertpt::cli {

// The flag of option `name` whose default is `member`'s value.
template <class T>
std::string option_flag_of(const char* name, const T& member) {
  if constexpr (std::is_same_v<T, bool>) {
    if (member) return "--no-" + option_flag(name).substr(2);
  }
  return option_flag(name);
}

template <class Options, class Visit>
void add_option_flags(CLI::App* cmd, Options& o, Visit visit) {
  visit(o, [&](const char* name, auto& member, const char* help) {
    using T = std::decay_t<decltype(member)>;
    const std::string flag = option_flag_of(name, member);
    if constexpr (std::is_same_v<T, bool>) {
      if (member) {
        cmd->add_flag_callback(
            flag, [&member] { member = false; }, help);  // --no-NAME turns it off
      } else {
        cmd->add_flag(flag, member, help);
      }
    } else {
      cmd->add_option(flag, member, help)->capture_default_str();
    }
  });
}

// {name: value} of the options whose flag was given to `cmd` (parsed into `o`).
template <class Options, class Visit>
nlohmann::json given_options(CLI::App* cmd, const Options& o, Visit visit) {
  nlohmann::json given = nlohmann::json::object();
  visit(o, [&](const char* name, const auto& member, const char*) {
    // The default decides the flag's spelling; `o` holds the parsed value, so ask for both spellings.
    for (const std::string& flag : {option_flag(name), "--no-" + option_flag(name).substr(2)}) {
      const CLI::Option* opt = cmd->get_option_no_throw(flag);
      if (opt && opt->count() > 0) given[name] = member;
    }
  });
  return given;
}

}  // namespace bertpt::cli
