#include "engine/resumed_options.h"

#include "common/error.h"
#include "common/json_fields.h"
#include "common/options_json.h"
#include "engine/run_checkpoint.h"

namespace bertpt::engine {

std::string resume_checkpoint(const std::string& resume, const std::string& output_dir) {
  if (resume != "auto") return resume;
  const auto all = list_checkpoints(output_dir);
  return all.empty() ? std::string() : all.back().second;
}

nlohmann::json options_in_state(const nlohmann::json& state, const std::string& checkpoint) {
  const JsonFields f(state, checkpoint + "/trainer_state.json", "", "the checkpoint is damaged; resume from another");
  return f.any_object(f.has("options") || !f.has("config") ? "options" : "config");
}

nlohmann::json saved_options(const std::string& checkpoint) {
  return options_in_state(read_trainer_state(checkpoint), checkpoint);
}

nlohmann::json resumed_options(const nlohmann::json& saved, const nlohmann::json& given,
                               const std::set<std::string>& may_change, const std::string& checkpoint) {
  nlohmann::json merged = saved;
  for (const auto& [key, value] : given.items()) {
    if (saved.contains(key) && saved[key] != value && !may_change.count(key)) {
      throw BadInput(option_flag(key) + " " + (value.is_string() ? value.get<std::string>() : value.dump()) +
                         " differs from the run being resumed, which has " +
                         (saved[key].is_string() ? "'" + saved[key].get<std::string>() + "'" : saved[key].dump()) +
                         " (" + checkpoint + "/trainer_state.json)",
                     "leave it out to continue the run as it was; a different run needs another --output-dir "
                     "(or --overwrite-output-dir)");
    }
    merged[key] = value;
  }
  return merged;
}

}  // namespace bertpt::engine
