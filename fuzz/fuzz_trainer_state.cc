// trainer_state.json of arbitrary bytes: parse_trainer_state must refuse it with a BadInput naming
// the file (never another exception or a crash), and the fields `train --resume` then reads through
// JsonFields must either be of their type or be refused the same way.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/json_fields.h"
#include "engine/trainer_state_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "fuzz/trainer_state.json";
  try {
    const nlohmann::json s = bertpt::engine::parse_trainer_state(text, path, {"data_position", "options"});
    if (!s["step"].is_number_integer() || !s["optimizer_steps"].is_number_integer()) std::abort();
    const bertpt::JsonFields f(s, path);
    (void)f.i64("step");
    (void)f.u64("data_position");
    if (f.has("elapsed_sec")) (void)f.number("elapsed_sec");
    if (f.has("skipped_steps")) (void)f.i64("skipped_steps");
    if (f.has("log_window")) (void)f.object("log_window").number("loss_sum");
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();  // the error names the file
  }
  return 0;
}
