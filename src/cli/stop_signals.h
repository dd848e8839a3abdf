// SIGINT/SIGTERM/SIGUSR1 for the commands that train (train, finetune): the first signal asks the run
// to finish its step, save a checkpoint and exit 0 (continue with --resume auto); a second one ends
// the process at once. SIGTERM is what torchrun, `scancel` and `scontrol requeue` send; SIGUSR1 is
// Slurm's customary warning before a time limit or preemption (`sbatch --signal=USR1@120`).
#pragma once

namespace bertpt::cli {

// Installs the handlers for the lifetime of the object and clears an earlier request.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Whether a signal arrived (the training hooks' stop_requested).
  static bool requested();
};

}  // namespace bertpt::cli
