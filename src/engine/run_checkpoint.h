// Training checkpoints, for any task: RUN/checkpoint-STEP/ is a Hugging Face model directory
// (config.json, model.safetensors, the tokenizer files) plus what `--resume` needs to continue exactly
// (docs/training.md, "Checkpoint format"):
//   optimizer.safetensors  AdamW moments, fp32: exp_avg.<param>, exp_avg_sq.<param>
//   trainer_state.json     step, global data position, schedule, effective config, counters
//   DONE                   written last; a directory without it is incomplete and never resumed
// The directory is assembled under a temporary name, fsynced and renamed into place.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "engine/adamw.h"
#include "engine/trainer_state_file.h"
#include "model/bert_config.h"

namespace bertpt::engine {

constexpr const char* kDoneMarker = "DONE";

std::string checkpoint_name(int64_t step);  // "checkpoint-STEP"

// Complete checkpoints (with DONE) of `run_dir`, oldest (lowest step) first.
std::vector<std::pair<int64_t, std::string>> list_checkpoints(const std::string& run_dir);
// Any checkpoint-* directories at all (complete or not).
bool has_any_checkpoint(const std::string& run_dir);
// The checkpoint-* directories of `run_dir` without DONE (their writing was cut short), oldest first.
std::vector<std::pair<int64_t, std::string>> incomplete_checkpoints(const std::string& run_dir);

// Writes RUN/checkpoint-STEP atomically: `model`'s weights (fp32) with `config` (its architectures
// name the task's model class), the optimizer state, `trainer_state` completed with the format
// fields, the tokenizer files of `tokenizer_dir`, and `model_card` as README.md (when given).
// Returns the checkpoint path.
std::string save_checkpoint(const std::string& run_dir, int64_t step, const torch::nn::Module& model,
                            const model::BertConfig& config, const AdamW& optimizer, nlohmann::json trainer_state,
                            const std::string& tokenizer_dir, const std::string& model_card = {});

// Deletes every checkpoint-* directory of `run_dir`, complete or not (a run started afresh, or one
// that finished and needs none).
void remove_checkpoints(const std::string& run_dir);

// Deletes the oldest complete checkpoints beyond `keep` (0: keep all), never `protect`.
void prune_checkpoints(const std::string& run_dir, int64_t keep, const std::string& protect);

// Reads and checks trainer_state.json of a complete checkpoint; BadInput naming the directory when
// it is missing, incomplete (no DONE) or of another format/version.
// Every trainer state has the integers "step" and "optimizer_steps"; `task_fields` are the keys the
// task's own part must have.
nlohmann::json read_trainer_state(const std::string& checkpoint_dir, const std::vector<std::string>& task_fields = {});

// Keeps the records of RUN/metrics.jsonl up to `step`: after a resume, the steps logged past the
// checkpoint by the interrupted run are replayed and must not appear twice.
void truncate_metrics(const std::string& path, int64_t step);

// Optimizer moments from CHECKPOINT/optimizer.safetensors (fp32 CPU tensors).
std::vector<std::pair<std::string, at::Tensor>> read_optimizer_state(const std::string& checkpoint_dir);

}  // namespace bertpt::engine
