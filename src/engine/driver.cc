#include "engine/driver.h"

#include "engine/run_checkpoint.h"

namespace bertpt::engine {

namespace {

// The checkpoint --resume names, its trainer state read and checked by the task.
ResumePoint find_resume_point(const TrainingRun& run, const TrainingTask& task) {
  ResumePoint from;
  from.dir = run.find_resume_checkpoint();
  if (from.empty()) return from;
  from.state = read_trainer_state(from.dir, task.state_fields());
  task.check_resume(from);
  return from;
}

// RUN/checkpoint-STEP: the task's model, trainer state and card, with the step runner's counters.
void save(TrainingRun& run, TrainingTask& task, int64_t step) {
  const TaskCheckpoint c = task.checkpoint();
  auto trainer_state = [&] {
    nlohmann::json s = task.trainer_state();
    s["options"] = run.all_options();  // all of them: a resume keeps those not given (resumed_options.h)
    s["skipped_steps"] = run.runner().skipped_steps();
    s["consecutive_nonfinite_steps"] = run.runner().consecutive_bad_steps();
    return s;
  };
  const std::string path = run.save_checkpoint(
      step, *c.model, c.config, trainer_state, c.tokenizer_dir, [&] { return task.model_card(); }, c.keep);
  task.saved(step, path);
}

// From the run directory to the first step: the task's model and counters, the step runner, the log.
int64_t start(TrainingRun& run, TrainingTask& task, const ResumePoint& from) {
  task.build(from);
  const int64_t step = task.restore(from);
  run.start_steps(task.step_settings(), from.dir, from.state);
  task.restored(from);
  if (run.main()) task.clear_outputs(!from.empty());
  run.open_run_log(step, task.model_config());
  task.begin();
  return step;
}

}  // namespace

bool train(TrainingRun& run, TrainingTask& task) {
  // One run per RUN directory at a time; taken before an earlier run's files may be removed.
  run.lock_output_dir();
  const ResumePoint from = find_resume_point(run, task);
  run.claim_output_dir(!from.empty(), task.earlier_outputs(), task.earlier_run());
  int64_t step = start(run, task, from);
  const int64_t total = task.total_steps();
  while (step < total) {
    const TaskStep next = task.next_step(step);
    const StepOutput out = run.step(next.input, next.forward);
    ++step;
    task.stepped(step, next.input, out);
    if (next.input.log_step || out.stop) task.log(step, run.runner().take_interval(step));
    // A signal at the last step changes nothing: the run ends as it would have.
    const bool stopping = out.stop && step < total;
    task.end_period(step, stopping);
    if (task.saves_after(step) || stopping) save(run, task, step);
    if (stopping) {
      run.message("stopped by a signal after step " + std::to_string(step) + "; continue with --resume auto");
      task.finish(step, /*stopped=*/true);
      return true;
    }
  }
  task.finish(step, /*stopped=*/false);
  return false;
}

}  // namespace bertpt::engine
