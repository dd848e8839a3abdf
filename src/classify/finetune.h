// `bertpt finetune`: a pre-trained BERT (or ModernBERT, RoBERTa, XLM-R) fine-tuned as transformers'
// Trainer does it, on one of two tasks (classify/finetune_task.h):
//   text classification or regression (sequence_task.h; run_glue.py): [CLS] a [SEP] (b [SEP])
//     truncated longest-first to --max-seq-len, a label per example from the pooled [CLS] (RoBERTa:
//     <s> a </s></s> b </s>, its classifier.dense/out_proj head on <s>) (cross-entropy), or one
//     number (regression, classify/problem_type.h: STS-B; squared error);
//   token classification (token_task.h; run_ner.py): CoNLL sentences, a tag per word on its first
//     sub-token (cross-entropy over the labelled tokens); entity-level F1 (seqeval).
// Both: dynamic padding, AdamW (no decay for biases/LayerNorm), linear warmup + decay, gradient
// clipping, evaluation on the valid split after every epoch, the best epoch's model kept.
// Data-parallel through the same Collectives as `bertpt train`: every rank takes its slice of each
// global batch and the loss is normalised by the global batch's items (examples, or labelled tokens).
// No LibTorch in this header.
//
// Output directory:
//   best/           the best epoch's model (HF layout: config.json with id2label/label2id and
//                   architectures ["BertForSequenceClassification"] (ModernBert..., Roberta...,
//                   XLMRoberta...) or [..."ForTokenClassification"],
//                   model.safetensors, tokenizer, README.md model card)
//   metrics.jsonl   training log records and one record per epoch evaluation
//   results.json    the final report: per-epoch history, and the best model's metrics on valid and
//                   test (accuracy, macro-F1, MCC, per-class precision/recall/F1, confusion matrix,
//                   majority-class baseline; regression: Pearson, Spearman, MSE; tags: entity
//                   precision/recall/F1 overall and per type, word accuracy); flat keys
//                   valid_accuracy, test_macro_f1, test_pearson, test_f1, ... for scripts
//   run_config.json the effective options
//   checkpoint-STEP/ while the run is incomplete: the model, optimizer and trainer state after the
//                   last finished epoch, or after the step a signal stopped (engine/run_checkpoint.h);
//                   --resume auto continues from it exactly (the example order and dropout are pure
//                   functions of seed, epoch and step). Deleted once results.json is written.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "classify/finetune_options.h"
#include "classify/labeled_data.h"
#include "engine/run_hooks.h"

namespace bertpt::classify {

// Fine-tuning takes the run's hooks (engine/run_hooks.h): messages are the data summary, epochs and the
// best model; stop_requested is polled before every step.
using FinetuneHooks = engine::RunHooks;

// The best model on one labelled split (its metrics are results.json's).
struct SplitReport {
  std::string name;  // "valid" or "test"
  int64_t examples = 0;
  std::string table;  // the metrics for people
};

struct FinetuneResult {
  nlohmann::json report;            // results.json
  std::vector<SplitReport> splits;  // valid, test: those given
  std::string best_dir;
  bool interrupted = false;  // stopped by stop_requested: a checkpoint was saved, no report yet
  std::string checkpoint;    // that checkpoint
};

FinetuneResult run_finetune(const FinetuneOptions& options, const FinetuneHooks& hooks = {});

// Human lines for a metrics.jsonl record of run_finetune.
std::string format_finetune_log(const nlohmann::json& record);

}  // namespace bertpt::classify
