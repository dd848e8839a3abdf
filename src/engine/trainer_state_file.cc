#include "engine/trainer_state_file.h"

#include "common/error.h"

namespace bertpt::engine {

nlohmann::json parse_trainer_state(std::string_view text, const std::string& path,
                                   const std::vector<std::string>& task_fields) {
  nlohmann::json s;
  try {
    s = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(path + ": not valid JSON (" + e.what() + ")", "the checkpoint is corrupt; resume from another");
  }
  // Compared as JSON values: a field of another type is "not ours", never a JSON type exception.
  if (!s.is_object() || !s.contains("format") || s["format"] != kTrainerStateFormat) {
    throw BadInput(path + ": not a bertpt trainer state",
                   "resume needs a checkpoint written by bertpt train or bertpt finetune");
  }
  if (!s.contains("format_version") || s["format_version"] != kTrainerStateVersion) {
    throw BadInput(path + ": trainer state format version " + s["format_version"].dump() + ", this bertpt reads " +
                   std::to_string(kTrainerStateVersion));
  }
  for (const char* k : {"step", "optimizer_steps"}) {
    if (!s.contains(k) || !s[k].is_number_integer()) {
      throw BadInput(path + ": field \"" + k + "\" is missing or not an integer", "the checkpoint is corrupt");
    }
    // A step counts steps taken: a negative one would resume "step -4" at a negative learning rate.
    if (s[k].get<int64_t>() < 0) {
      throw BadInput(path + ": field \"" + k + "\" is " + s[k].dump() + ", a count of steps cannot be negative",
                     "the checkpoint is corrupt; resume from another");
    }
  }
  for (const std::string& k : task_fields) {
    if (!s.contains(k)) throw BadInput(path + ": missing field \"" + k + "\"", "the checkpoint is corrupt");
  }
  return s;
}

}  // namespace bertpt::engine
