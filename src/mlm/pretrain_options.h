// Every option of `bertpt train`, declared once: its default (the member initialiser), its flag
// (--learning-rate), its key in --config / run_config.json (learning_rate) and its help text all come
// from visit_pretrain_options() below. Defaults reproduce the Hugging Face guide's bert-base run
// (docs/hf-compat.md, "Guide defaults"). This header does not use LibTorch.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "engine/lr_schedule.h"
#include "engine/run_options.h"

namespace bertpt::mlm {

// The run's shared options (engine/run_options.h: output_dir, resume, the step, the machine, the log),
// with the guide's learning rate, no weight decay and seed 34, and pre-training's own.
struct PretrainOptions : engine::RunOptions {
  PretrainOptions() : RunOptions(/*learning_rate=*/5e-5, /*weight_decay=*/0.0, /*seed=*/34) {}

  // ---- what to train on
  std::string data;                 // DATA: a directory written by `bertpt prepare`
  std::string phase_schedule;       // LEN:SHARE[:BATCH[:ACCUM]],... over DATA/seq-LEN (data/phase_schedule.h)
  std::string model = "bert-base";  // preset name, config.json path or checkpoint dir (vocab_size from DATA)
  std::string init_from;            // HF checkpoint dir (safetensors) to start from
  bool verify_data = false;         // hash every shard and check every id before training (data/verify.h)

  // ---- optimisation (the guide's values)
  int64_t global_batch_size = 0;  // > 0: grad_accum derived from it and the world size (elastic jobs)
  int64_t max_steps = 100000;
  int64_t warmup_steps = 0;
  std::string lr_scheduler =
      "linear";             // linear, constant, cosine, polynomial, warmup_stable_decay (engine/lr_schedule.h)
  double lr_end = 1e-7;     // polynomial: the lr reached at max_steps
  double lr_power = 1.0;    // polynomial: the power of the decay
  int64_t decay_steps = 0;  // warmup_stable_decay: steps of the final decay (0: 10% of the steps after warmup)
  std::string decay_type = "cosine";  // warmup_stable_decay: linear (trapezoidal), cosine, 1-sqrt
  double min_lr_ratio = 0.0;          // warmup_stable_decay: the lr after the decay, as a share of the peak
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double adam_epsilon = 1e-8;
  std::string optim =
      "adamw";  // engine::AdamW kernel: adamw (auto), adamw_torch_fused, adamw_torch, adamw_bertpt; lamb
  double mlm_probability = 0.15;
  bool whole_word_mask = false;  // select whole words (a token and its "##" continuations), data/masking.h

  // ---- hardware
  std::string attention = "auto";  // auto, fused, explicit

  // ---- evaluation, saving, cost
  int64_t eval_steps = 0;        // 0: evaluate only at the end (when DATA has a valid split)
  int64_t eval_max_batches = 0;  // 0: the whole valid split
  int64_t save_steps = 5000;     // 0: save only at the end
  int64_t save_total_limit = 2;  // 0: keep all
  double price_per_hour = 0;     // $ per hour of this machine: cost so far and projected
  std::string instance;          // or: an instance of the price table (configs/prices.json)
  double peak_tflops = 0;        // override the peak used for MFU (0: measured / known table)

  nlohmann::json to_json() const;
  // Sets the options named in `j` (keys as to_json(), dashes accepted for underscores); unknown keys
  // and wrong types are BadInput naming `source` and the key.
  void apply_json(const nlohmann::json& j, const std::string& source);
  // Range and consistency checks; BadInput naming the flag.
  void validate() const;
};

// Calls f(name, member, help) for every option, in a fixed order. `name` is the JSON key
// (learning_rate); the flag is "--" + name with '_' -> '-'.
template <class Options, class F>
void visit_pretrain_options(Options& o, F&& f) {
  f("data", o.data, "Prepared dataset directory (from bertpt prepare)");
  f("phase_schedule", o.phase_schedule,
    "Train in phases of different lengths over DATA/seq-LEN (prepare --seq-len 128,512): "
    "LEN:SHARE[:PER_DEVICE_BATCH[:GRAD_ACCUM]],... e.g. 128:0.9,512:0.1 (NVIDIA's BERT recipe)");
  f("model", o.model,
    "Model: a preset (bert-tiny ... bert-large), a config.json, or a checkpoint dir; vocab_size comes from the "
    "dataset");
  f("init_from", o.init_from, "Start from this Hugging Face checkpoint directory (model.safetensors)");
  f("verify_data", o.verify_data,
    "Before training, check every shard's SHA-256 and token ids against the manifest (as bertpt data verify); "
    "headers and sizes are always checked");
  engine::visit_run_options(o, f);
  f("global_batch_size", o.global_batch_size,
    "Sequences per optimizer step over all ranks (0: per-device batch x accumulation x ranks); the "
    "accumulation is derived from it at every start, so an elastic job (torchrun --nnodes MIN:MAX) keeps its "
    "global batch, and its run, when the world size changes");
  f("max_steps", o.max_steps, "Optimizer steps of the whole run");
  f("warmup_steps", o.warmup_steps, "Linear warmup steps");
  f("lr_scheduler", o.lr_scheduler,
    "linear (decay to 0 after warmup), constant, cosine, polynomial (to --lr-end, NVIDIA's recipe), or "
    "warmup_stable_decay (the peak until the last --decay-steps; trapezoidal with --decay-type linear)");
  f("lr_end", o.lr_end, "polynomial: the learning rate at --max-steps");
  f("lr_power", o.lr_power, "polynomial: the power of the decay (1: linear)");
  f("decay_steps", o.decay_steps, "warmup_stable_decay: steps of the final decay (0: 10% of the steps after warmup)");
  f("decay_type", o.decay_type, "warmup_stable_decay: shape of the decay: linear, cosine or 1-sqrt");
  f("min_lr_ratio", o.min_lr_ratio, "warmup_stable_decay: the learning rate after the decay, as a share of the peak");
  f("adam_beta1", o.adam_beta1, "AdamW beta1");
  f("adam_beta2", o.adam_beta2, "AdamW beta2");
  f("adam_epsilon", o.adam_epsilon, "AdamW epsilon");
  f("optim", o.optim,
    "AdamW kernel: adamw (bertpt's CPU loop on CPU, LibTorch's fused kernel on CUDA), adamw_torch_fused "
    "(LibTorch's fused kernel; the step then never waits for the device), adamw_torch (tensor ops), adamw_bertpt; "
    "or lamb (LAMB: AdamW's moments with a per-tensor trust ratio, for large batches; NVIDIA's BERT recipe)");
  f("mlm_probability", o.mlm_probability, "Share of tokens (or words, with --whole-word-mask) selected for prediction");
  f("whole_word_mask", o.whole_word_mask,
    "Select whole words: all tokens of a word are masked together (its start: a WordPiece token without '##', "
    "a byte-level BPE token with 'Ġ', a Metaspace token with '▁'; HF's whole_word_mask)");
  f("attention", o.attention, "Attention kernel: auto, fused, explicit");
  f("eval_steps", o.eval_steps, "Evaluate on the valid split every N steps (0: only at the end)");
  f("eval_max_batches", o.eval_max_batches, "Batches per evaluation (0: the whole valid split)");
  f("save_steps", o.save_steps, "Save a checkpoint every N steps (0: only at the end)");
  f("save_total_limit", o.save_total_limit, "Keep only the newest N checkpoints (0: all)");
  f("price_per_hour", o.price_per_hour, "Price of this machine per hour: show $ so far and projected");
  f("instance", o.instance, "Or: an instance name of the price table (configs/prices.json)");
  f("peak_tflops", o.peak_tflops, "Peak TFLOP/s for MFU (0: measured GEMM rate on CPU, known peak on GPU)");
}

// The options a resumed run may give with another value (engine/resumed_options.h): where the run
// writes and how long it goes on (--max-steps extends it), logging, evaluation, saving, the machine.
// --data may name another copy of the run's dataset (a checkpoint of other data is refused by its
// fingerprint); the per-device batch and accumulation may be split anew over another number of ranks
// when the global batch stays the run's (checked against the checkpoint). Every other option is the
// run's own.
inline const std::set<std::string> kMayChangeOnResume = {"per_device_batch_size",
                                                         "grad_accum",
                                                         "data",
                                                         "output_dir",
                                                         "resume",
                                                         "overwrite_output_dir",
                                                         "verify_data",
                                                         "max_steps",
                                                         "logging_steps",
                                                         "eval_steps",
                                                         "eval_max_batches",
                                                         "save_steps",
                                                         "save_total_limit",
                                                         "max_nan_steps",
                                                         "price_per_hour",
                                                         "instance",
                                                         "peak_tflops",
                                                         "device",
                                                         "threads",
                                                         "attention",
                                                         "report_to",
                                                         "dump_batches"};

// The learning-rate schedule the options describe (validated options: decay_steps 0 resolved).
engine::LrSchedule lr_schedule_of(const PretrainOptions& o);

// --global-batch-size: sets grad_accum to global / (per-device batch x world_size) for this start.
// BadInput naming the sizes when the global batch is not a multiple of per-device batch x ranks, or
// when a phase schedule (batches per phase) or an explicit --grad-accum is given too.
void resolve_global_batch(PretrainOptions& o, int world_size);

// --init-from DIR starts a new run from DIR's weights and its config.json: the run's model is DIR.
// A --model given too (`model_given`: on the command line or in --config) must name DIR's
// architecture; BadInput naming both and what differs when it does not. Either way `model` becomes
// DIR, which run_config.json then records. Nothing happens without --init-from, or when DIR has no
// config.json (the run refuses DIR when it reads the weights).
void adopt_init_from_model(PretrainOptions& o, bool model_given);

// Global batch = per-device batch x accumulation x ranks.
inline int64_t global_batch_size(const PretrainOptions& o, int world_size) {
  return o.per_device_batch_size * o.grad_accum * world_size;
}

}  // namespace bertpt::mlm
