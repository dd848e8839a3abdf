#include "engine/run_log.h"

#include <filesystem>

#include "common/error.h"

namespace bertpt::engine {

namespace fs = std::filesystem;

void validate_report_to(const std::string& report_to) {
  if (report_to != "tensorboard" && report_to != "none") {
    throw BadInput("--report-to must be tensorboard or none, got '" + report_to + "'");
  }
  if (report_to == "tensorboard" && !io::tfevents_available()) {
    throw BadInput(
        "--report-to tensorboard: this bertpt was built without protobuf, so it cannot write event files",
        "install protobuf-compiler and libprotobuf-dev (scripts/setup) and rebuild, or pass --report-to none");
  }
}

std::string tensorboard_tag(const std::string& key) {
  if (key == "step") return "";
  if (key.rfind("eval_", 0) == 0) return "eval/" + key.substr(5);
  if (key.rfind("valid_", 0) == 0) return "eval/" + key.substr(6);
  return "train/" + key;
}

namespace {

std::string json_block(const nlohmann::json& j) { return "```\n" + j.dump(2) + "\n```"; }

}  // namespace

RunLog::RunLog(const RunLogOptions& o) : jsonl_((fs::path(o.run_dir) / "metrics.jsonl").string(), o.enabled) {
  if (!o.enabled || o.report_to == "none") return;
  validate_report_to(o.report_to);
  const fs::path dir = fs::path(o.run_dir) / "runs";
  std::error_code ec;
  if (o.start_step == 0) fs::remove_all(dir, ec);  // a fresh run: no curves of an earlier one
  io::TfEventsOptions eo;
  if (o.start_step > 0) eo.purge_step = o.start_step + 1;
  events_ = std::make_unique<io::TfEventsWriter>(dir.string(), eo);
  if (!o.hyperparameters.is_null()) events_->add_text("args", json_block(o.hyperparameters), o.start_step);
  if (!o.model_config.is_null()) events_->add_text("model_config", json_block(o.model_config), o.start_step);
  events_->flush();
}

RunLog::~RunLog() = default;

void RunLog::write(const nlohmann::json& record) {
  jsonl_.write(record);
  if (!events_ || !record.contains("step") || !record["step"].is_number_integer()) return;
  const int64_t step = record["step"].get<int64_t>();
  const double now = io::unix_time_now();
  for (const auto& [key, value] : record.items()) {
    const std::string tag = tensorboard_tag(key);
    if (tag.empty() || !value.is_number()) continue;
    // One value per tag and step: fine-tuning's epoch record repeats `epoch` at its last step.
    auto [last, fresh] = last_step_.try_emplace(tag, step);
    if (!fresh && last->second == step) continue;
    last->second = step;
    events_->add_scalar(tag, value.get<double>(), step, now);
  }
  events_->flush();
}

}  // namespace bertpt::engine
