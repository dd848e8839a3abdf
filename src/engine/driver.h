// The training driver: one run of any task, in one order, with one loop. engine::train() owns what
// every task does the same way; a TrainingTask supplies what differs.
//
//   train(run, task)
//     lock RUN                    one run per directory (training_run.h)
//     find the checkpoint         --resume: RUN/checkpoint-STEP, or auto: the newest complete one
//     read its trainer_state      task.state_fields(); task.check_resume() refuses another run's
//     claim RUN                   a new run where task.earlier_outputs() are: refused, or cleared
//     task.build()                the model on the device, its weights (new, --init-from, resumed),
//                                 attached to the run's optimizer
//     task.restore()              the task's counters; the step runner (optimizer moments, counters)
//     open the run log            run_config.json, metrics.jsonl up to the step, TensorBoard
//     task.begin()                what the task says and sets up before its first step
//     loop until task.total_steps():
//       task.next_step()          its batch: StepInput and forward
//       run.step()                signals, the optimizer step (step_runner.h)
//       task.log()                every logging step, and at a stop
//       task.end_period()         an evaluation (every --eval-steps; each epoch's end)
//       checkpoint                task.saves_after(), and at a stop; task.trainer_state(), model_card()
//       a stop                    a signal before the last step: say how to continue, end
//     task.finish()               the task's results (final evaluation, best model, report)
//
// Pre-training (mlm/pretrain.cc: steps in phases) and fine-tuning (classify/finetune.cc: steps in
// epochs) are the two tasks.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/step_runner.h"
#include "engine/training_run.h"
#include "model/bert_config.h"

namespace bertpt::engine {

// The checkpoint a run continues: its directory ("" for a new run) and trainer_state.json.
struct ResumePoint {
  std::string dir;
  nlohmann::json state;
  bool empty() const { return dir.empty(); }
};

// One optimizer step of the task: what the step runner needs and the forward of its micro-batches.
struct TaskStep {
  StepInput input;
  MicroForward forward;
};

// What a checkpoint holds of the task.
struct TaskCheckpoint {
  const torch::nn::Module* model = nullptr;
  model::BertConfig config;  // its architectures name the task's model class
  std::string tokenizer_dir;
  int64_t keep = 0;  // the newest checkpoints kept (0: all)
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;

  // ---- before the first step, in the driver's order
  // The fields the task's part of trainer_state.json must have.
  virtual std::vector<std::string> state_fields() const = 0;
  // Refuses (BadInput) a checkpoint of another run: other data, other options.
  virtual void check_resume(const ResumePoint& from) const = 0;
  // What, besides checkpoints, an earlier run left in RUN (best/, results.json), and what RUN then holds.
  virtual std::vector<std::string> earlier_outputs() const { return {}; }
  virtual std::string earlier_run() const = 0;
  // The model on the run's device with its weights (resuming: the checkpoint's), attached to the run.
  virtual void build(const ResumePoint& from) = 0;
  // The task's counters from the checkpoint (resuming); returns the step the run goes on from.
  virtual int64_t restore(const ResumePoint& from) = 0;
  // The step runner's settings (engine::step_settings_of with the task's dropout streams).
  virtual StepSettings step_settings() const = 0;
  // After the step runner: what the task restores into it (a log window).
  virtual void restored(const ResumePoint& /*from*/) {}
  // The main rank, before the run log opens: the task's outputs of an earlier run that a new one
  // replaces (resuming: `resuming` is true).
  virtual void clear_outputs(bool /*resuming*/) {}
  // The model's config.json, for the run log's hyperparameters.
  virtual nlohmann::json model_config() const = 0;
  virtual void begin() {}

  // ---- the loop
  virtual int64_t total_steps() const = 0;
  // Step `step` (0-based): its batch and forward. The forward may refer to the task until the next call.
  virtual TaskStep next_step(int64_t step) = 0;
  // After the optimizer step: `step` is the 1-based count of steps done.
  virtual void stepped(int64_t /*step*/, const StepInput& /*in*/, const StepOutput& /*out*/) {}
  // A log record of the steps since the last one (every logging step, and at a stop).
  virtual void log(int64_t step, const StepInterval& interval) = 0;
  // The end of a period after step `step`: an evaluation; `stopping`: a signal ends the run after it.
  virtual void end_period(int64_t /*step*/, bool /*stopping*/) {}
  virtual bool saves_after(int64_t step) const = 0;
  // The checkpoint's model, config, tokenizer and how many are kept; its trainer_state and model card.
  virtual TaskCheckpoint checkpoint() const = 0;
  virtual nlohmann::json trainer_state() const = 0;
  virtual std::string model_card() const = 0;
  // A checkpoint was written at `path` (main rank; "" on the others).
  virtual void saved(int64_t /*step*/, const std::string& /*path*/) {}
  // After the loop: `stopped` when a signal ended the run before its last step (a checkpoint was saved).
  virtual void finish(int64_t step, bool stopped) = 0;
};

// Runs `task` in `run` (whose device and ranks are set up, and into which the task was constructed,
// having read its data): the order above. Returns whether a signal stopped the run before its end.
bool train(TrainingRun& run, TrainingTask& task);

}  // namespace bertpt::engine
