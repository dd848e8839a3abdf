// Every option of `bertpt finetune`, declared once: its default (the member initialiser), its flag, its
// key in run_config.json and its help text come from visit_finetune_options() (common/options_json.h).
// No LibTorch in this header.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "classify/labeled_data.h"
#include "engine/run_defaults.h"

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
  double max_grad_norm = engine::kDefaultMaxGradNorm;
  int64_t max_nan_steps = engine::kDefaultMaxNanSteps;  // consecutive non-finite steps before giving up
  uint64_t seed = 42;                                   // head init, example order, dropout
  std::string task = "auto";             // text-classification or token-classification (classify/finetune_task.h)
  std::string problem_type = "auto";     // single_label_classification or regression (classify/problem_type.h)
  std::string metric_for_best = "auto";  // accuracy / pearson; macro_f1, mcc, binary_f1; spearman, ... (on valid)

  std::string precision = "bf16";
  std::string device = "cpu";
  int threads = 0;
  int64_t eval_batch_size = 64;
  int64_t logging_steps = 0;              // 0: about 30 records per run, at most every 50 steps (engine/run_log.h)
  std::string dump_batches;               // write every micro-batch as .npy under this dir (engine/batch_dump.h)
  std::string report_to = "tensorboard";  // or "none": TensorBoard event files in OUT/runs (engine/run_log.h)

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
  f("output_dir", o.output_dir, "Output: best/ (HF model directory), metrics.jsonl, results.json");
  f("overwrite_output_dir", o.overwrite_output_dir, "Replace a fine-tuned model already in --output-dir");
  f("resume", o.resume,
    "'auto': continue the unfinished run in --output-dir from its checkpoint (after a signal or a crash), exactly "
    "as if never stopped; or a checkpoint directory");
  f("epochs", o.epochs, "Passes over the training examples");
  f("learning_rate", o.learning_rate, "Peak learning rate (linear warmup, then linear decay to 0)");
  f("per_device_batch_size", o.per_device_batch_size, "Examples per micro-batch on each device");
  f("grad_accum", o.grad_accum, "Micro-batches accumulated per optimizer step");
  f("max_seq_len", o.max_seq_len,
    "Tokens per example incl. [CLS]/[SEP]; longer ones are truncated (pairs longest-first, as Hugging Face)");
  f("warmup_ratio", o.warmup_ratio, "Share of the steps spent warming up (rounded up, as transformers)");
  f("weight_decay", o.weight_decay, "AdamW weight decay (not on biases and LayerNorm)");
  f("max_grad_norm", o.max_grad_norm, "Gradient clipping (0: none)");
  f("max_nan_steps", o.max_nan_steps,
    "Stop after this many consecutive steps with a non-finite loss or gradient (each one is skipped)");
  f("seed", o.seed, "Seed of the head's init, the example order and dropout");
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
  f("precision", o.precision, "bf16 (autocast) or fp32");
  f("device", o.device, "cpu, cuda or cuda:N");
  f("threads", o.threads, "CPU threads (0: all cores)");
  f("eval_batch_size", o.eval_batch_size, "Examples per evaluation batch");
  f("logging_steps", o.logging_steps, "Log every N steps (0: about 30 records per run, at most every 50 steps)");
  f("report_to", o.report_to,
    "tensorboard: also write the metrics as TensorBoard event files in OUT/runs; none: only metrics.jsonl");
  f("dump_batches", o.dump_batches,
    "Write every micro-batch (input_ids, token_type_ids, attention_mask, labels) as NumPy .npy files under this "
    "directory: DIR/step-00000001/rank-0/micro-0/NAME.npy");
}

}  // namespace bertpt::classify
