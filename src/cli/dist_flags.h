// The data-parallel flags of the commands that train (train, finetune) and the built-in launcher's
// start of local workers; joining the process group is distributed/process_group.h.
// docs/distributed.md.
#pragma once

#include <CLI/CLI.hpp>

#include "distributed/launcher.h"

namespace bertpt::cli {

// How many processes and where they meet.
struct DistFlags {
  distributed::LaunchOptions launch;
  double timeout_seconds = 300;
};

// --nproc-per-node, --nnodes, --node-rank, --master-addr, --master-port, --dist-timeout.
void add_dist_flags(CLI::App* cmd, DistFlags& flags);

// Thrown once the built-in launcher's workers have finished: main() exits with `status` (exit codes
// are set in main.cc only).
struct WorkersFinished {
  int status = 0;
};

// The built-in launcher: when the flags ask for several processes and this one was not started by
// it, start N copies of this very command line, wait for them and throw WorkersFinished with their
// status. Returns (does nothing) otherwise.
void launch_workers_if_asked(const DistFlags& flags, bool quiet);

}  // namespace bertpt::cli
