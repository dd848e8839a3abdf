// Every option of `bertpt finetune`, declared once: its default (the member initialiser), its flag, its
// key in run_config.json and its help text come from visit_finetune_options() (common/options_json.h).
// No LibTorch in this header.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "classify/labeled_data.h"
#include "engine/run_options.h"

namespace bertpt::classify {

// The run's shared options (engine/run_options.h: output_dir, resume, the step, the machine, the log),
// with transformers' fine-tuning learning rate 2e-5, weight decay 0.01 and seed 42, and fine-tuning's own.
struct FinetuneOptions : engine::RunOptions {
  FinetuneOptions() : RunOptions(/*learning_rate=*/2e-5, /*weight_decay=*/0.01, /*seed=*/42) {}

  std::string model;                  // checkpoint dir (bertpt or HF), or a preset for a random init
  std::string tokenizer;              // tokenizer dir (default: the model dir)
  std::string train, valid, test;     // labelled files (test optional)
  classify::LabeledDataOptions data;  // format, fields, header

  int64_t epochs = 3;
  int64_t max_seq_len = 128;
  double warmup_ratio = 0.0;             // share of all steps used for linear warmup
  std::string task = "auto";             // text-classification or token-classification (classify/finetune_task.h)
  std::string problem_type = "auto";     // single_label_classification or regression (classify/problem_type.h)
  std::string metric_for_best = "auto";  // accuracy / pearson; macro_f1, mcc, binary_f1; spearman, ... (on valid)
  int64_t eval_batch_size = 64;

  // Not an option (no flag, not in to_json()): what messages and the model card call --test's split;
  // glue's is GLUE's dev set.
  std::string test_name = "test";

  nlohmann::json to_json() const;
  // Sets the options named in `j` (keys as to_json()); BadInput naming `source` and the key.
  void apply_json(const nlohmann::json& j, const std::string& source);
  void validate() const;  // BadInput naming the flag
};

// The options a resumed run may give with another value (engine/resumed_options.h). A checkpoint records
// every option (trainer_state.json "options", as train's "config"): one not given on resume is the run's
// own, these included (--threads 1 stays 1).
inline const std::set<std::string> kMayChangeOnResume = {"output_dir", "overwrite_output_dir", "resume",       "device",
                                                         "threads",    "eval_batch_size",      "logging_steps"};

// Calls f(name, member, help) for every option, in a fixed order (common/options_json.h).
template <class Options, class F>
void visit_finetune_options(Options& o, F&& f) {
  f("model", o.model,
    "Pre-trained checkpoint directory (bertpt or Hugging Face, safetensors), or a preset (bert-tiny ... bert-base) "
    "for a random init with --tokenizer");
  f("tokenizer", o.tokenizer, "Tokenizer directory (default: the model directory)");
  f("train", o.train, "Labelled training examples: JSONL, CSV or TSV (compressed too)");
  f("valid", o.valid, "Labelled validation examples: evaluated every epoch, picks the best epoch");
  f("test", o.test, "Labelled test examples: evaluated once with the best model");
  f("format", o.data.format,
    "auto (by extension), jsonl, csv, tsv; conll (a word and its tag per line, blank lines between sentences: "
    "token classification)");
  f("text_field", o.data.text_field, "Field (JSONL key, CSV/TSV column name or 0-based index) of the text");
  f("text_pair_field", o.data.text_pair_field, "Field of the second text, for pair tasks (RTE, MRPC style)");
  f("label_field", o.data.label_field, "Field of the label (strings or integers)");
  f("header", o.data.header, "CSV/TSV files have no header line: fields are 0-based column indices");
  engine::visit_run_options(o, f);
  f("epochs", o.epochs, "Passes over the training examples");
  f("max_seq_len", o.max_seq_len,
    "Tokens per example incl. [CLS]/[SEP]; longer ones are truncated (pairs longest-first, as Hugging Face)");
  f("warmup_ratio", o.warmup_ratio, "Share of the steps spent warming up (rounded up, as transformers)");
  f("task", o.task,
    "text-classification (a label or a number per text or text pair), token-classification (a tag per word: NER; "
    "CoNLL files), or auto: token-classification when --format is conll");
  f("problem_type", o.problem_type,
    "single_label_classification (a class per example), regression (a number per example, MSE loss: STS-B), or "
    "auto: regression when every training label is a number and some have a decimal point");
  f("metric_for_best", o.metric_for_best,
    "On --valid. Classes: accuracy, macro_f1, mcc (Matthews, GLUE's CoLA) or binary_f1 (label id 1 positive: "
    "MRPC, QQP); regression: pearson, spearman or pearson_spearman_mean; tags: f1, precision, recall (entity-level, "
    "seqeval) or accuracy (per word); auto: accuracy, pearson or f1");
  f("eval_batch_size", o.eval_batch_size, "Examples per evaluation batch");
}

}  // namespace bertpt::classify
