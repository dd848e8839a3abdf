// A run's metrics, for both tasks: every record appended to RUN/metrics.jsonl and, with TensorBoard
// on (`--report-to tensorboard`, the default), its numbers written as scalars to TensorBoard event
// files in RUN/runs/ (the Trainer's logging_dir) under the Trainer's tag names: `eval_loss` ->
// eval/loss, `valid_accuracy` -> eval/accuracy, any other key k -> train/k (train/loss,
// train/learning_rate, train/grad_norm, train/tokens_per_sec, train/mfu, ...), at the record's step.
// Plain C++ (io/tfevents.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/jsonl_log.h"
#include "io/tfevents.h"

namespace bertpt::engine {

// BadInput unless "tensorboard" or "none"; for "tensorboard", also when this build cannot write
// event files (no protobuf).
void validate_report_to(const std::string& report_to);

// The logging interval of --logging-steps 0: about kAutoLogRecords records over a run of `total_steps`
// (a short run still draws a curve), at most `cap` steps apart (the Trainer's long-run default).
constexpr int64_t kAutoLogRecords = 30;
inline int64_t auto_logging_steps(int64_t total_steps, int64_t cap) {
  const int64_t every = (total_steps + kAutoLogRecords - 1) / kAutoLogRecords;
  return every < 1 ? 1 : every > cap ? cap : every;
}

// TensorBoard's tag for a metrics.jsonl key ("" for keys that are not metrics: step).
std::string tensorboard_tag(const std::string& key);

struct RunLogOptions {
  std::string run_dir;
  bool enabled = true;  // false on ranks other than 0: writes nothing
  std::string report_to = "tensorboard";
  int64_t start_step = 0;          // > 0: a resumed run; TensorBoard hides the old files' later steps
  nlohmann::json hyperparameters;  // shown in TensorBoard's text tab as "args" (at start_step)
  nlohmann::json model_config;     // ... and "model_config"
};

class RunLog {
 public:
  // Opens RUN/metrics.jsonl for appending (the task truncates it on a resume) and, with TensorBoard,
  // a new event file in RUN/runs/ (a fresh run first removes the old ones).
  explicit RunLog(const RunLogOptions& options);
  ~RunLog();
  // One record: a line of metrics.jsonl, and its numeric fields as scalars at record["step"]. A
  // failed write throws BadInput naming the file.
  void write(const nlohmann::json& record);

 private:
  JsonlLog jsonl_;
  std::unique_ptr<io::TfEventsWriter> events_;
  std::map<std::string, int64_t> last_step_;  // per tag, the step of its last scalar
};

}  // namespace bertpt::engine
