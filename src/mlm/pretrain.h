// `bertpt train`: masked-language-model pre-training of BertForMaskedLM, from a prepared dataset to
// Hugging Face checkpoints. No LibTorch in this header (the CLI includes it).
//
// One optimizer step, on each rank (see collectives.h for the data-parallel contract):
//   batch   = the loader's StepBatch: grad_accum micro-batches of per_device_batch sequences
//   count   = masked positions of the whole global batch (all micro-batches, all ranks)
//   for each micro-batch: loss = Σ cross-entropy at masked positions / count; backward
//   → the gradient is that of the mean loss over the global batch, however it is split.
//   grad norm (global) → non-finite: skip the update (counted; stop after max_nan_steps in a row)
//   clip to max_grad_norm → AdamW with lr = schedule(step)
// Dropout draws from LibTorch's generator re-seeded with hash(seed, step, rank, micro-step) before
// each micro-batch, so a resumed run replays exactly the dropout masks of an uninterrupted one.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/run_hooks.h"
#include "mlm/pretrain_options.h"

namespace bertpt::mlm {

// What one optimizer step did (the on_step hook; tests compare these between runs).
struct StepRecord {
  int64_t step = 0;  // 1-based: the number of updates after this step
  double loss = 0;   // mean over the global batch's masked positions
  double accuracy = 0;
  double learning_rate = 0;
  double grad_norm = 0;  // before clipping
  bool skipped = false;  // non-finite loss or gradient: no update
};

// The run's hooks (engine/run_hooks.h), and the pre-training's own.
struct TrainHooks : engine::RunHooks {
  std::function<void(const nlohmann::json&)> on_start;  // the run summary (config, model, peak)
  std::function<void(const StepRecord&)> on_step;
};

struct TrainResult {
  int64_t start_step = 0, final_step = 0;
  bool interrupted = false;  // stopped by stop_requested (a checkpoint was saved)
  int64_t skipped_steps = 0;
  std::string last_checkpoint;
  nlohmann::json last_log;   // the last training metrics record
  nlohmann::json last_eval;  // the last evaluation record (null when none ran)
  double seconds = 0;        // this process's wall time
};

// Runs (or resumes) a training run. Throws BadInput for the user's mistakes (paths, mismatched
// vocabularies, seq_len > max_position_embeddings, out of memory with the batch size, too many
// non-finite steps ...).
TrainResult run_pretraining(const PretrainOptions& options, const TrainHooks& hooks = {});

// The human progress line of a metrics record ("step 100/1000 | loss 6.12 | ...").
std::string format_log_line(const nlohmann::json& record, int64_t max_steps);

}  // namespace bertpt::mlm
