// `bertpt glue`: one pre-trained model fine-tuned on every GLUE task found in directories of GLUE's
// official layout, with one set of hyperparameters (and per-task overrides), scored with each
// task's metric on its dev split — the table encoders are compared by (BERT, MosaicBERT, ModernBERT).
//
// A task is a folder named as GLUE names it (CoLA, SST-2, MRPC, STS-B, QQP, MNLI, QNLI, RTE, WNLI;
// SST2 and STSB too) holding train.tsv and dev.tsv (MNLI: dev_matched.tsv, and dev_mismatched.tsv
// for MNLI-mm), each file in its task's own TSV format, read by column name (CoLA: no header, the
// sentence in column 3 and the label in column 1). Two-column files without a header — label and
// sentence in either order, as SentEval-style copies of SST-2 and CoLA hold them — are read too.
//
// As transformers' run_glue.py reports: the model after the last epoch, evaluated on dev (GLUE's
// test labels are not public). Metrics: CoLA Matthews correlation; STS-B Pearson and Spearman;
// MRPC and QQP F1 (label 1 positive) and accuracy; the others accuracy. A task's score is the mean
// of its metrics (MNLI: matched and mismatched are two rows), the average the mean of the scores.
// No LibTorch in this header.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classify/finetune.h"
#include "classify/finetune_options.h"

namespace bertpt::classify {

struct GlueOptions {
  FinetuneOptions finetune;            // model, tokenizer, hyperparameters; output_dir holds a folder per task
  std::vector<std::string> data_dirs;  // folders holding task folders
  std::vector<std::string> tasks;      // empty: every task found
  std::vector<std::string> overrides;  // "TASK.OPTION=VALUE", e.g. "RTE.epochs=10" (OPTION as --config keys)
};

struct GlueScore {
  std::string task;                                     // "CoLA", "MNLI-m", ...
  std::vector<std::pair<std::string, double>> metrics;  // ("mcc", 0.41), ("f1", ...), ("accuracy", ...)
  double score = 0;                                     // their mean
  int64_t train_examples = 0, dev_examples = 0;
  double seconds = 0;
};

struct GlueResult {
  std::vector<GlueScore> rows;
  double average = 0;
  nlohmann::json to_json() const;
};

// Fine-tunes and scores every task; BadInput when no task is found, or a task named in `tasks` is
// missing. Each task's run is in OUTPUT_DIR/TASK (finetune's layout: best/, results.json, ...).
GlueResult run_glue(const GlueOptions& options, const FinetuneHooks& hooks = {});

// The table: task, metrics, score, examples; the average last.
std::string format_glue_table(const GlueResult& result);

}  // namespace bertpt::classify
