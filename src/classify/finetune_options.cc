#include "classify/finetune_options.h"

#include <set>

#include "common/error.h"
#include "common/options_json.h"

namespace bertpt::classify {

// Every option, so that run_config.json and results.json record the whole run.
nlohmann::json FinetuneOptions::to_json() const {
  return options_to_json(*this, [](const auto& o, auto&& f) { visit_finetune_options(o, f); });
}

void FinetuneOptions::apply_json(const nlohmann::json& j, const std::string& source) {
  apply_options_json(
      *this, [](auto& o, auto&& f) { visit_finetune_options(o, f); }, j, source, "finetune");
}

void FinetuneOptions::validate() const {
  if (model.empty()) {
    throw BadInput("--model is required", "a checkpoint directory, or a preset such as bert-mini with --tokenizer");
  }
  if (train.empty()) throw BadInput("--train is required", "a JSONL, CSV or TSV file of labelled examples");
  RunOptions::validate();  // output_dir, the step, the machine, the log
  if (epochs <= 0) throw BadInput("--epochs must be > 0");
  // Comparisons are false for NaN and the bounds are finite, so NaN and inf are refused too.
  if (eval_batch_size <= 0) throw BadInput("--eval-batch-size must be > 0");
  if (max_seq_len < 3) throw BadInput("--max-seq-len must be at least 3 ([CLS], a token, [SEP])");
  if (!(warmup_ratio >= 0 && warmup_ratio <= 1)) throw BadInput("--warmup-ratio must be in [0, 1]");
  if (problem_type != "auto" && problem_type != "single_label_classification" && problem_type != "regression") {
    throw BadInput("--problem-type must be auto, single_label_classification or regression, got '" + problem_type +
                   "'");
  }
  if (task != "auto" && task != "text-classification" && task != "token-classification") {
    throw BadInput("--task must be auto, text-classification or token-classification, got '" + task + "'");
  }
  const bool conll = data.format == "conll";
  if ((task == "token-classification" && !conll && data.format != "auto") || (task == "text-classification" && conll)) {
    throw BadInput("--format " + data.format + " does not fit --task " + task,
                   "token classification reads CoNLL files (--format conll or auto); text classification reads "
                   "jsonl, csv or tsv");
  }
  const std::set<std::string> metrics = {"auto",      "accuracy",  "macro_f1", "mcc",
                                         "binary_f1", "pearson",   "spearman", "pearson_spearman_mean",
                                         "f1",        "precision", "recall"};
  if (!metrics.count(metric_for_best)) {
    throw BadInput(
        "--metric-for-best must be auto, accuracy, macro_f1, mcc, binary_f1, pearson, spearman, "
        "pearson_spearman_mean, f1, precision or recall, got '" +
        metric_for_best + "'");
  }
}

}  // namespace bertpt::classify
