// A command's options declared once, by a visitor: `visit(options, f)` calls f(name, member, help) for
// every option, in a fixed order (mlm/pretrain_options.h, classify/finetune_options.h). From that one
// declaration come the JSON of run_config.json and --config (here), the flags (cli/option_flags.h) and
// the resume rule (engine/resumed_options.h). `name` is the JSON key (learning_rate); the flag is
// --learning-rate, and --no-NAME for a switch that is on by default.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "common/error.h"
#include "common/json_fields.h"

namespace bertpt {

// "--learning-rate" for "learning_rate".
inline std::string option_flag(const std::string& key) {
  std::string f = "--" + key;
  for (char& c : f) c = c == '_' ? '-' : c;
  return f;
}

// "learning_rate" for "learning-rate": a --config key as the declaration names it.
inline std::string option_key(std::string key) {
  for (char& c : key) c = c == '-' ? '_' : c;
  return key;
}

// The value of field `key` of `f` as the option's type; BadInput naming the file and field otherwise.
template <class T>
T option_from_json(const JsonFields& f, const char* key) {
  if constexpr (std::is_same_v<T, bool>) {
    return f.boolean(key);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return f.str(key);
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    const uint64_t v = f.u64(key);
    if (v > std::numeric_limits<T>::max()) f.fail(key, "is " + std::to_string(v) + ", out of range");
    return T(v);
  } else if constexpr (std::is_integral_v<T>) {
    const int64_t v = f.i64(key);
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
      f.fail(key, "is " + std::to_string(v) + ", out of range");
    }
    return T(v);
  } else {
    return T(f.number(key));
  }
}

template <class Options, class Visit>
nlohmann::json options_to_json(const Options& o, Visit visit) {
  nlohmann::json j = nlohmann::json::object();
  visit(o, [&](const char* name, const auto& member, const char*) { j[name] = member; });
  return j;
}

// Sets the options named in `j` (keys as options_to_json's; dashes accepted for underscores). An
// unknown key or a wrong type is BadInput naming `source` and the key; `command` names the options
// ("train", "finetune") in the message.
template <class Options, class Visit>
void apply_options_json(Options& o, Visit visit, const nlohmann::json& j, const std::string& source,
                        const std::string& command) {
  if (!j.is_object()) throw BadInput(source + ": expected a JSON object of " + command + " options");
  nlohmann::json normalized = nlohmann::json::object();
  for (const auto& [raw_key, value] : j.items()) {
    const std::string key = option_key(raw_key);
    bool known = false;
    visit(o, [&](const char* name, auto&, const char*) { known = known || key == name; });
    if (!known) {
      throw BadInput(source + ": unknown " + command + " option \"" + raw_key + "\"",
                     "keys are the flag names with '_' for '-' (see bertpt " + command + " --help)");
    }
    normalized[key] = value;
  }
  const JsonFields fields(normalized, source);
  visit(o, [&](const char* name, auto& member, const char*) {
    if (normalized.contains(name)) member = option_from_json<std::decay_t<decltype(member)>>(fields, name);
  });
}

}  // namespace bertpt
