// `bertpt finetune`: sequence classification on a pre-trained BERT (src/classify/finetune.h).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/dist_flags.h"
#include "cli/stop_signals.h"
#include "cli/train_commands.h"
#include "common/error.h"

#include "classify/finetune.h"
#include "classify/metrics.h"
#include "common/hash.h"
#include "distributed/process_group.h"

namespace bertpt::cli {

namespace {

void print_report(const classify::FinetuneResult& result) {
  const nlohmann::json& r = result.report;
  std::fprintf(stderr, "finetune: best epoch %lld of %zu (chosen by: %s) -> %s\n",
               (long long)r["best_epoch"].get<int64_t>(), r["epochs"].size(),
               ((r.contains("valid") ? "valid " : "") + r["metric_for_best"].get<std::string>()).c_str(),
               result.best_dir.c_str());
  for (const auto& s : result.splits) {
    std::fprintf(stderr, "\n%s (%lld examples; majority-class baseline accuracy %.4f)\n", s.name.c_str(),
                 (long long)s.examples, s.majority_accuracy);
    std::fprintf(stderr, "%s", classify::format_metrics_table(s.metrics).c_str());
  }
}

struct FinetuneFlags {
  CommonFlags common;
  classify::FinetuneOptions options;
  bool no_header = false;
  DistFlags dist;
};

void run_finetune_command(const FinetuneFlags& f) {
  launch_workers_if_asked(f.dist, f.common.quiet);
  classify::FinetuneOptions opts = f.options;
  opts.data.header = !f.no_header;
  opts.validate();
  nlohmann::json fp = opts.to_json();
  fp.erase("device");
  fp.erase("threads");
  auto collectives = distributed::join_process_group(f.dist.timeout_seconds, opts.device, opts.threads,
                                                     "the finetune options (data, model, batch, seed)",
                                                     hash64(fp.dump()));
  const bool quiet = f.common.quiet || (collectives && collectives->rank() != 0);
  classify::FinetuneHooks hooks;
  hooks.collectives = collectives.get();
  hooks.stop_requested = [] { return StopSignals::requested(); };
  hooks.on_message = [&](const std::string& m) {
    if (!quiet) std::fprintf(stderr, "finetune: %s\n", m.c_str());
  };
  hooks.on_log = [&](const nlohmann::json& r) {
    if (!quiet) std::fprintf(stderr, "%s\n", classify::format_finetune_log(r).c_str());
  };
  StopSignals signals;
  classify::FinetuneResult r = classify::run_finetune(opts, hooks);
  if (r.interrupted) {
    if (!quiet) std::fprintf(stderr, "finetune: stopped -> %s\n", r.checkpoint.c_str());
    return;
  }
  if (collectives) collectives->verify_parameters_in_sync();
  if (!quiet) print_report(r);
  if (f.common.json && (!collectives || collectives->rank() == 0)) print_json(r.report);
}

}  // namespace

void add_finetune_command(CLI::App& app) {
  auto o = std::make_shared<FinetuneFlags>();
  auto& f = o->options;
  auto* cmd = app.add_subcommand("finetune", "Fine-tune BERT for sequence classification (single texts or pairs)");
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated flag: the last wins
  cmd->add_option("--model", f.model,
                  "Pre-trained checkpoint directory (bertpt or Hugging Face, safetensors), or a preset "
                  "(bert-tiny ... bert-base) for a random init with --tokenizer")
      ->required();
  cmd->add_option("--tokenizer", f.tokenizer, "Tokenizer directory (default: the model directory)");
  cmd->add_option("--train", f.train, "Labelled training examples: JSONL, CSV or TSV (compressed too)")->required();
  cmd->add_option("--valid", f.valid, "Labelled validation examples: evaluated every epoch, picks the best epoch");
  cmd->add_option("--test", f.test, "Labelled test examples: evaluated once with the best model");
  cmd->add_option("--format", f.data.format, "auto (by extension), jsonl, csv, tsv")->capture_default_str();
  cmd->add_option("--text-field", f.data.text_field,
                  "Field (JSONL key, CSV/TSV column name or 0-based index) of the text")
      ->capture_default_str();
  cmd->add_option("--text-pair-field", f.data.text_pair_field,
                  "Field of the second text, for pair tasks (RTE, MRPC style)");
  cmd->add_option("--label-field", f.data.label_field, "Field of the label (strings or integers)")
      ->capture_default_str();
  cmd->add_flag("--no-header", o->no_header, "CSV/TSV files have no header line: fields are 0-based column indices");
  cmd->add_option("--output-dir", f.output_dir, "Output: best/ (HF model directory), metrics.jsonl, results.json")
      ->required();
  cmd->add_flag("--overwrite-output-dir", f.overwrite_output_dir, "Replace a fine-tuned model already in --output-dir");
  cmd->add_option("--resume", f.resume,
                  "'auto': continue the unfinished run in --output-dir from its checkpoint (after a signal or a "
                  "crash), exactly as if never stopped; or a checkpoint directory");
  cmd->add_option("--epochs", f.epochs, "Passes over the training examples")->capture_default_str();
  cmd->add_option("--learning-rate", f.learning_rate, "Peak learning rate (linear warmup, then linear decay to 0)")
      ->capture_default_str();
  cmd->add_option("--per-device-batch-size", f.per_device_batch_size, "Examples per micro-batch on each device")
      ->capture_default_str();
  cmd->add_option("--grad-accum", f.grad_accum, "Micro-batches accumulated per optimizer step")->capture_default_str();
  cmd->add_option("--max-seq-len", f.max_seq_len,
                  "Tokens per example incl. [CLS]/[SEP]; longer ones are truncated "
                  "(pairs longest-first, as Hugging Face)")
      ->capture_default_str();
  cmd->add_option("--warmup-ratio", f.warmup_ratio, "Share of the steps spent warming up (rounded up, as transformers)")
      ->capture_default_str();
  cmd->add_option("--weight-decay", f.weight_decay, "AdamW weight decay (not on biases and LayerNorm)")
      ->capture_default_str();
  cmd->add_option("--max-grad-norm", f.max_grad_norm, "Gradient clipping (0: none)")->capture_default_str();
  cmd->add_option("--max-nan-steps", f.max_nan_steps,
                  "Stop after this many consecutive steps with a non-finite loss or gradient (each one is skipped)")
      ->capture_default_str();
  cmd->add_option("--seed", f.seed, "Seed of the head's init, the example order and dropout")->capture_default_str();
  cmd->add_option("--metric-for-best", f.metric_for_best, "accuracy or macro_f1 (on --valid)")->capture_default_str();
  cmd->add_option("--precision", f.precision, "bf16 (autocast) or fp32")->capture_default_str();
  cmd->add_option("--device", f.device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--threads", f.threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--eval-batch-size", f.eval_batch_size, "Examples per evaluation batch")->capture_default_str();
  cmd->add_option("--logging-steps", f.logging_steps, "Log every N steps")->capture_default_str();
  cmd->add_option("--report-to", f.report_to,
                  "tensorboard: also write the metrics as TensorBoard event files in OUT/runs; none: only "
                  "metrics.jsonl")
      ->capture_default_str();
  cmd->add_option("--dump-batches", f.dump_batches,
                  "Write every micro-batch (input_ids, token_type_ids, attention_mask, labels) as NumPy .npy files "
                  "under this directory: DIR/step-00000001/rank-0/micro-0/NAME.npy");
  add_dist_flags(cmd, o->dist);
  add_common_flags(cmd, o->common);
  cmd->callback([o] { run_finetune_command(*o); });
}

}  // namespace bertpt::cli
