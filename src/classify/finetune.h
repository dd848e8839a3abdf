// `bertpt finetune`: sequence classification (single texts or pairs) on top of a pre-trained BERT,
// as transformers' BertForSequenceClassification + Trainer (run_glue.py) do it:
//   [CLS] a [SEP] (b [SEP]) truncated longest-first to --max-seq-len, dynamic padding,
//   cross-entropy on the pooled [CLS] (bert.pooler.dense + tanh, dropout, classifier),
//   AdamW (no decay for biases/LayerNorm), linear warmup + decay, gradient clipping,
//   evaluation on the valid split after every epoch, the best epoch's model kept.
// Data-parallel through the same Collectives as `bertpt train`: every rank takes its slice of each
// global batch and the loss is normalised by the global batch size. No LibTorch in this header.
//
// Output directory:
//   best/           the best epoch's model (HF layout: config.json with id2label/label2id and
//                   architectures ["BertForSequenceClassification"], model.safetensors, tokenizer)
//   metrics.jsonl   training log records and one record per epoch evaluation
//   results.json    the final report: per-epoch history, and the best model's metrics on valid and
//                   test (accuracy, macro-F1, per-class precision/recall/F1, confusion matrix,
//                   majority-class baseline); flat keys valid_accuracy, valid_macro_f1,
//                   test_accuracy, test_macro_f1, test_majority_accuracy for scripts
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

#include "classify/labeled_data.h"
#include "classify/metrics.h"

namespace bertpt::engine {
class Collectives;
}

namespace bertpt::classify {

struct FinetuneOptions {
  std::string model;                  // checkpoint dir (bertpt or HF), or a preset for a random init
  std::string tokenizer;              // tokenizer dir (default: the model dir)
  std::string train, valid, test;     // labelled files (test optional)
  classify::LabeledDataOptions data;  // format, fields, header
  std::string output_dir;
  bool overwrite_output_dir = false;
  std::string resume;  // "auto": continue the run in output_dir from its checkpoint; or a checkpoint dir

  int64_t epochs = 3;
  double learning_rate = 2e-5;
  int64_t per_device_batch_size = 32;
  int64_t grad_accum = 1;  // micro-batches per optimizer step
  int64_t max_seq_len = 128;
  double warmup_ratio = 0.0;  // share of all steps used for linear warmup
  double weight_decay = 0.01;
  double max_grad_norm = 1.0;
  int64_t max_nan_steps = 10;                // consecutive non-finite steps before giving up
  uint64_t seed = 42;                        // head init, example order, dropout
  std::string metric_for_best = "accuracy";  // or macro_f1 (on valid)

  std::string precision = "bf16";
  std::string device = "cpu";
  int threads = 0;
  int64_t eval_batch_size = 64;
  int64_t logging_steps = 50;
  std::string dump_batches;               // write every micro-batch as .npy under this dir (engine/batch_dump.h)
  std::string report_to = "tensorboard";  // or "none": TensorBoard event files in OUT/runs (engine/run_log.h)

  nlohmann::json to_json() const;
  void validate() const;  // BadInput naming the flag
};

struct FinetuneHooks {
  engine::Collectives* collectives = nullptr;
  std::function<void(const std::string&)> on_message;  // data summary, epochs, best model
  std::function<void(const nlohmann::json&)> on_log;   // every metrics.jsonl record
  std::function<bool()> stop_requested;                // polled after every step (SIGINT/SIGTERM)
  std::function<bool(int64_t step)> inject_nonfinite;  // test hook: poison the loss of this 0-based step
  std::function<void(int64_t step)> during_forward;    // test hook: runs inside each micro-batch's forward
};

// The best model on one labelled split.
struct SplitReport {
  std::string name;  // "valid" or "test"
  int64_t examples = 0;
  classify::ClassificationMetrics metrics;
  double majority_accuracy = 0;  // predicting the most frequent training label for everything
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
