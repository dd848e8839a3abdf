#include "plot/run_curves.h"

#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"

namespace bertpt::plot {

namespace fs = std::filesystem;

namespace {

// Which record field feeds which curve.
using FieldMap = std::initializer_list<std::pair<Points RunCurves::*, const char*>>;
constexpr FieldMap kBertptFields = {{&RunCurves::loss, "loss"},
                                    {&RunCurves::eval_loss, "eval_loss"},
                                    {&RunCurves::accuracy, "mlm_accuracy"},
                                    {&RunCurves::eval_accuracy, "eval_accuracy"},
                                    {&RunCurves::tokens_per_sec, "tokens_per_sec"},
                                    {&RunCurves::learning_rate, "learning_rate"}};
constexpr FieldMap kTrainerStateFields = {{&RunCurves::loss, "loss"},
                                          {&RunCurves::eval_loss, "eval_loss"},
                                          {&RunCurves::eval_accuracy, "eval_accuracy"},
                                          {&RunCurves::learning_rate, "learning_rate"}};

// Adds the numbers of one log record at its step. Records without a numeric step are skipped: a
// metrics.jsonl line cut short by a crash, or a log entry of another kind.
void add_record(RunCurves& c, const nlohmann::json& r, FieldMap fields) {
  if (!r.is_object() || !r.contains("step") || !r["step"].is_number()) return;
  ++c.records;
  const double step = r["step"].get<double>();
  for (const auto& [series, key] : fields) {
    auto it = r.find(key);
    if (it != r.end() && it->is_number()) (c.*series).emplace_back(step, it->get<double>());
  }
}

}  // namespace

RunCurves parse_bertpt_metrics(const std::string& text) {
  RunCurves c;
  c.source = "bertpt";
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    add_record(c, nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false), kBertptFields);
  }
  return c;
}

// transformers' TrainerState: {"log_history": [{"loss", "learning_rate", "grad_norm", "step", ...},
// {"eval_loss", "eval_accuracy", "step", ...}, ...]}.
RunCurves parse_trainer_state(const std::string& text, const std::string& source) {
  const char* hint = "a Hugging Face Trainer's trainer_state.json has a \"log_history\" list";
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BadInput(source + ": not valid JSON", hint);
  RunCurves c;
  c.source = "transformers";
  for (const auto& r : JsonFields(j, source, "", hint).array("log_history")) add_record(c, r, kTrainerStateFields);
  return c;
}

RunCurves read_run_curves(const std::string& path) {
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    file = fs::path(path) / "metrics.jsonl";
    if (!fs::exists(file, ec) && fs::exists(fs::path(path) / "trainer_state.json", ec)) {
      file = fs::path(path) / "trainer_state.json";
    }
  }
  if (!fs::exists(file, ec)) {
    throw BadInput(file.string() + " does not exist",
                   "pass a bertpt train --output-dir (metrics.jsonl) or a Trainer's trainer_state.json");
  }
  const std::string text = read_file(file.string());
  RunCurves c = file.filename() == "trainer_state.json" || file.extension() == ".json"
                    ? parse_trainer_state(text, file.string())
                    : parse_bertpt_metrics(text);
  if (c.records == 0) throw BadInput(file.string() + " has no metrics records yet", "plot after the first logged step");
  c.label = path;
  return c;
}

}  // namespace bertpt::plot
