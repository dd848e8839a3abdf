// The curves of a training run, read from what it logged: a bertpt run's metrics.jsonl, or a Hugging
// Face Trainer's trainer_state.json (its log_history), so `bertpt plot` can draw both side by side.
// Plain C++ (no LibTorch).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bertpt::plot {

using Points = std::vector<std::pair<double, double>>;  // (step, value), in file order

struct RunCurves {
  std::string label;   // shown in the legend: the path given
  std::string source;  // "bertpt" or "transformers"
  Points loss, eval_loss, accuracy, eval_accuracy, tokens_per_sec, learning_rate;
  size_t records = 0;  // log records read
};

// `path`: a bertpt run directory or metrics.jsonl; an HF trainer_state.json, or a directory holding
// one (a Trainer checkpoint-N). BadInput naming the file when it is missing, has no records, or a
// trainer_state.json is not valid JSON. A metrics.jsonl line cut short by a crash is skipped.
RunCurves read_run_curves(const std::string& path);

// The parsers alone, on file contents (`source` names the file in errors).
RunCurves parse_bertpt_metrics(const std::string& text);
RunCurves parse_trainer_state(const std::string& text, const std::string& source);

}  // namespace bertpt::plot
