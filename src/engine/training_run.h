// One training run, whatever the task. What pre-training (mlm/pretrain.h) and fine-tuning
// (classify/finetune.h) have in common lives here once:
//   the process    device and threads, the ranks (collectives.h), bf16 or fp32
//   the directory  RUN's lock, refusing (or with --overwrite-output-dir clearing) an earlier run,
//                  run_config.json, metrics.jsonl and TensorBoard (run_log.h)
//   resume         the checkpoint --resume names, its trainer_state.json, the optimizer's moments and
//                  the non-finite policy's counters (run_checkpoint.h)
//   the step       AdamW (adamw.h) and the StepRunner that takes every optimizer step (step_runner.h),
//                  with the signal and test hooks
//   output         the main rank's log records and messages, --dump-batches, checkpoints
// A task brings what differs: its batches and their forward and loss (a MicroForward), its loop
// (steps and phases, or epochs), its evaluation, and what its checkpoints add (trainer_state fields,
// the model card). A new task is a file of its own that holds a TrainingRun.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/dir_lock.h"
#include "engine/adamw.h"
#include "engine/batch_dump.h"
#include "engine/collectives.h"
#include "engine/run_hooks.h"
#include "engine/run_log.h"
#include "engine/run_options.h"
#include "engine/step_runner.h"

namespace torch::nn {
class Module;
}
namespace bertpt::model {
struct BertConfig;
}

namespace bertpt::engine {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The step runner's settings that belong to the task.
struct StepSettings {
  double max_grad_norm = kDefaultMaxGradNorm;
  int64_t max_nan_steps = kDefaultMaxNanSteps;
  int64_t per_device_batch_size = 0;
  std::function<uint64_t(int64_t step, int64_t micro)> dropout_seed;  // a pure function (step_runner.h)
};

// A run's step settings: its options' clipping, non-finite policy and batch, and the task's dropout streams.
StepSettings step_settings_of(const RunOptions& o, std::function<uint64_t(int64_t step, int64_t micro)> dropout_seed);

// The step runner's options: a task's settings on this process's device and precision.
StepRunnerOptions step_runner_options(const StepSettings& settings, const at::Device& device, bool bf16);

class TrainingRun {
 public:
  // Sets up the device and threads (device.h) and the ranks. `options`: the run's shared options;
  // `all_options`: every option of the task, as run_config.json and TensorBoard record them.
  TrainingRun(const RunOptions& options, nlohmann::json all_options, const RunHooks& hooks);
  ~TrainingRun();
  TrainingRun(const TrainingRun&) = delete;
  TrainingRun& operator=(const TrainingRun&) = delete;

  // ---- the process
  Collectives& collectives() { return coll_; }
  int rank() const { return rank_; }
  int world() const { return world_; }
  bool main() const { return main_; }
  const at::Device& device() const { return device_; }
  bool bf16() const { return bf16_; }
  const RunHooks& hooks() const { return hooks_; }
  const RunOptions& options() const { return options_; }
  // Every option of the task (run_config.json; a checkpoint's trainer_state.json "options").
  const nlohmann::json& all_options() const { return all_options_; }

  // ---- the run directory and resume (a run without --output-dir, as bench's, has none: no lock, no
  // resume, no files; its log records go to the on_log hook only)
  // RUN/.bertpt.lock, held by the main rank for the run's life; taken before anything in RUN is removed.
  void lock_output_dir();
  // The checkpoint --resume names ("" for a new run: none named, or "auto" found no complete one).
  std::string find_resume_checkpoint() const;
  // A new run in a RUN that already holds `what` (checkpoints, or `task_outputs` such as best/):
  // BadInput naming it, unless --overwrite-output-dir, which removes the checkpoints and metrics.jsonl.
  void claim_output_dir(bool resuming, const std::vector<std::string>& task_outputs, const std::string& what);
  // Creates RUN, writes run_config.json, keeps metrics.jsonl up to `start_step` (0: empties it) and
  // opens the run log (TensorBoard included). All ranks call it.
  void open_run_log(int64_t start_step, const nlohmann::json& model_config);

  // ---- the optimizer and the step
  // Broadcasts `model`'s parameters from rank 0 (collectives.h) and makes the optimizer over them.
  void attach_model(const torch::nn::Module& model, const AdamWOptions& options);
  // Makes the step runner; resuming `checkpoint` (whose trainer state is `state`), the optimizer's
  // moments and the non-finite counters are read back first.
  void start_steps(const StepSettings& settings, const std::string& checkpoint = "",
                   const nlohmann::json& state = nullptr);
  // One optimizer step: the signal and test hooks fill in `in`, the runner runs it.
  StepOutput step(StepInput in, const MicroForward& forward);
  StepRunner& runner() { return *runner_; }
  const StepRunner& runner() const { return *runner_; }
  const AdamW& optimizer() const { return *optimizer_; }
  BatchDump& dump() { return dump_; }

  // ---- output
  // A record of metrics.jsonl (and TensorBoard), on the main rank; also to the on_log hook.
  void log(const nlohmann::json& record);
  void message(const std::string& m) const;
  // RUN/checkpoint-STEP (run_checkpoint.h), written by the main rank once the device-side counters are
  // settled; keeps the newest `keep` (0: all). Every rank waits for it. Returns its path (main rank).
  std::string save_checkpoint(int64_t step, const torch::nn::Module& model, const model::BertConfig& config,
                              const std::function<nlohmann::json()>& trainer_state, const std::string& tokenizer_dir,
                              const std::function<std::string()>& model_card, int64_t keep);

 private:
  const RunOptions options_;
  const nlohmann::json all_options_;
  const RunHooks& hooks_;
  SingleProcess single_;
  Collectives& coll_;
  const bool main_;
  const int rank_, world_;
  const at::Device device_;
  const bool bf16_;
  std::optional<DirLock> lock_;
  std::vector<at::Tensor> params_;  // the model's, in the optimizer's order
  std::unique_ptr<AdamW> optimizer_;
  std::unique_ptr<StepRunner> runner_;
  std::unique_ptr<RunLog> log_;
  BatchDump dump_;
};

}  // namespace bertpt::engine
