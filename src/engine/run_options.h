// The options every training task shares (train, finetune), declared once: where the run writes and
// how it resumes, the optimizer step, the machine, the log. Each task's options (mlm/pretrain_options.h,
// classify/finetune_options.h) are a RunOptions with the task's own added; their visitors call
// visit_run_options() once, so a shared option has one flag, one JSON key, one help text and one
// validation rule in every command. The defaults that differ by task (learning rate, weight decay,
// seed) are the constructor's arguments: each task states its own once. Plain C++, no LibTorch.
#pragma once

#include <cstdint>
#include <string>

#include "engine/run_defaults.h"

namespace bertpt::engine {

struct RunOptions {
  RunOptions(double default_learning_rate, double default_weight_decay, uint64_t default_seed)
      : learning_rate(default_learning_rate), weight_decay(default_weight_decay), seed(default_seed) {}

  // ---- the run directory
  std::string output_dir;             // RUN: checkpoints, metrics.jsonl, run_config.json
  std::string resume;                 // "": a new run; "auto": the latest complete checkpoint in RUN; or a checkpoint
  bool overwrite_output_dir = false;  // a new run where an earlier one is: its checkpoints and outputs are removed

  // ---- the optimizer step (engine/step_runner.h, engine/adamw.h)
  double learning_rate;
  int64_t per_device_batch_size = 32;  // sequences or examples per micro-batch on each device
  int64_t grad_accum = 1;              // micro-batches per optimizer step
  double weight_decay;                 // decoupled; not on biases and LayerNorm weights
  double max_grad_norm = kDefaultMaxGradNorm;
  int64_t max_nan_steps = kDefaultMaxNanSteps;
  uint64_t seed;

  // ---- the machine
  std::string precision = "bf16";  // bf16 (autocast; LayerNorm, softmax and the loss in fp32) or fp32
  std::string device = "cpu";      // cpu, cuda, cuda:N
  int threads = 0;                 // intra-op threads (0: LibTorch's default, all cores)

  // ---- the log
  int64_t logging_steps = 0;              // 0: about 30 records per run (engine/run_log.h)
  std::string report_to = "tensorboard";  // or "none": TensorBoard event files in RUN/runs (engine/run_log.h)
  std::string dump_batches;               // write every micro-batch as .npy under this dir (engine/batch_dump.h)

  // Range checks of these options; BadInput naming the flag.
  void validate() const;
};

// Calls f(name, member, help) for every shared option, in a fixed order (common/options_json.h).
// `what` names a micro-batch's items in the help ("sequences", "examples").
template <class Options, class F>
void visit_run_options(Options& o, F&& f) {
  f("output_dir", o.output_dir, "Run directory: checkpoints, metrics.jsonl, run_config.json and the task's outputs");
  f("resume", o.resume,
    "Continue from RUN/checkpoint-STEP, or 'auto' for the latest complete checkpoint in --output-dir, exactly as "
    "if never stopped; options not given are the run's own");
  f("overwrite_output_dir", o.overwrite_output_dir,
    "Start afresh in an --output-dir that already holds a run (its checkpoints and outputs are removed)");
  f("learning_rate", o.learning_rate, "Peak learning rate");
  f("per_device_batch_size", o.per_device_batch_size, "Sequences (examples) per micro-batch on each device");
  f("grad_accum", o.grad_accum, "Micro-batches accumulated per optimizer step");
  f("weight_decay", o.weight_decay, "Decoupled weight decay (not applied to biases and LayerNorm weights)");
  f("max_grad_norm", o.max_grad_norm, "Clip the global gradient norm to this (0: no clipping)");
  f("max_nan_steps", o.max_nan_steps,
    "Stop after this many consecutive steps with a non-finite loss or gradient (each one is skipped)");
  f("seed", o.seed, "Seed of initialisation, example order, masking and dropout");
  f("precision", o.precision, "bf16 (autocast, LayerNorm/softmax/loss in fp32) or fp32");
  f("device", o.device, "cpu, cuda or cuda:N");
  f("threads", o.threads, "CPU threads for tensor ops (0: all cores)");
  f("logging_steps", o.logging_steps, "Log (stderr + metrics.jsonl) every N steps (0: about 30 records per run)");
  f("report_to", o.report_to,
    "tensorboard: also write the metrics as TensorBoard event files in RUN/runs (the Trainer's logging_dir); "
    "none: only metrics.jsonl");
  f("dump_batches", o.dump_batches,
    "Write every micro-batch (input_ids, attention_mask, labels ...) as NumPy .npy files under this directory: "
    "DIR/step-00000001/rank-0/micro-0/NAME.npy");
}

}  // namespace bertpt::engine
