// The one signal handler of the commands that stop cleanly. The first SIGINT/SIGTERM (and SIGUSR1 for
// training) asks the command to stop at its next safe point; a second one ends the process at once.
//   training (train, finetune): finish the step, save a checkpoint, exit 0 (continue with --resume
//     auto). SIGTERM is what torchrun, `scancel` and `scontrol requeue` send; SIGUSR1 is Slurm's
//     customary warning before a time limit or preemption (`sbatch --signal=USR1@120`).
//   corpus merge: remove the temporary files (the shuffle's buckets are as large as the input), then
//     end by the signal as the process would have without the handler; a signal ignored when bertpt
//     started (a script's background job, nohup) stays ignored.
// Before a command has started its work it may be waiting for input (a FIFO that no writer opened yet,
// a stream that gives nothing): the first signal ends that wait too (common/stop_request.h), and the
// command ends by the signal, saying what it was waiting for.
#pragma once

#include <signal.h>

namespace bertpt::cli {

struct StopSignalOptions {
  const char* announce = nullptr;  // written to stderr at the first signal (nullptr: nothing)
  bool usr1 = false;               // SIGUSR1 stops too
  bool keep_ignored = false;       // a signal ignored on entry stays ignored
};

// The training commands' handling: announced, SIGUSR1 included, installed whatever was ignored (a
// launcher's background worker must still stop on SIGINT).
StopSignalOptions training_stop_signals();

// Installs the handlers for the lifetime of the object and clears an earlier request.
class StopSignals {
 public:
  explicit StopSignals(StopSignalOptions options = training_stop_signals());
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Whether a signal arrived (the training hooks' stop_requested), and which.
  static bool requested();
  static int signal_number();
  // Restores the handlers and ends the process by the signal that arrived.
  [[noreturn]] void end_by_signal();

 private:
  void restore();
  struct sigaction old_int_ = {}, old_term_ = {}, old_usr1_ = {};
  bool usr1_;
};

// Ends the process by `sig` as if no handler were installed (its status says so: 128 + sig in a
// shell); _exit(128 + sig) if it survives the signal.
[[noreturn]] void end_process_by_signal(int sig);

}  // namespace bertpt::cli
