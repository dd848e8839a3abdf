#include "plot/run_curves.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::plot {

namespace fs = std::filesystem;

namespace {

// Appends j[key] at `step` when it is a number.
void add(Points& points, const nlohmann::json& j, const char* key, double step) {
  auto it = j.find(key);
  if (it != j.end() && it->is_number()) points.emplace_back(step, it->get<double>());
}

}  // namespace

RunCurves parse_bertpt_metrics(const std::string& text) {
  RunCurves c;
  c.source = "bertpt";
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("step") || !j["step"].is_number()) continue;  // cut short by a crash
    ++c.records;
    const double step = j["step"].get<double>();
    add(c.loss, j, "loss", step);
    add(c.eval_loss, j, "eval_loss", step);
    add(c.accuracy, j, "mlm_accuracy", step);
    add(c.eval_accuracy, j, "eval_accuracy", step);
    add(c.tokens_per_sec, j, "tokens_per_sec", step);
    add(c.learning_rate, j, "learning_rate", step);
  }
  return c;
}

// transformers' TrainerState: {"log_history": [{"loss", "learning_rate", "grad_norm", "step", ...},
// {"eval_loss", "eval_accuracy", "step", ...}, ...]}.
RunCurves parse_trainer_state(const std::string& text, const std::string& source) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BadInput(source + ": not valid JSON", "a Hugging Face Trainer's trainer_state.json");
  if (!j.is_object() || !j.contains("log_history") || !j["log_history"].is_array()) {
    throw BadInput(source + ": no \"log_history\" list", "a Hugging Face Trainer's trainer_state.json has one");
  }
  RunCurves c;
  c.source = "transformers";
  for (const auto& r : j["log_history"]) {
    if (!r.is_object() || !r.contains("step") || !r["step"].is_number()) continue;
    ++c.records;
    const double step = r["step"].get<double>();
    add(c.loss, r, "loss", step);
    add(c.eval_loss, r, "eval_loss", step);
    add(c.eval_accuracy, r, "eval_accuracy", step);
    add(c.learning_rate, r, "learning_rate", step);
  }
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
