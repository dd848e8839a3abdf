// Data-parallel plumbing shared by the commands that train (train, finetune): the launcher flags,
// starting local workers, and joining the c10d process group under any launcher (ours, torchrun,
// mpirun, srun). docs/distributed.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "launch/launcher.h"

#ifdef BERTPT_HAVE_TORCH
#include "dist/c10d_collectives.h"
#endif

namespace bertpt::cli {

// How many processes and where they meet.
struct DistFlags {
  launch::LaunchOptions launch;
  double timeout_seconds = 300;
};

// --nproc-per-node, --nnodes, --node-rank, --master-addr, --master-port, --dist-timeout.
void add_dist_flags(CLI::App* cmd, DistFlags& flags);

// The built-in launcher: when the flags ask for several processes and this one was not started by
// it, start N copies of this very command line, wait for them and exit with their status.
// Returns (does nothing) otherwise.
void launch_workers_if_asked(const DistFlags& flags, bool quiet);

#ifdef BERTPT_HAVE_TORCH
// Under a launcher, this process's c10d collectives (nullptr when it runs alone). Sets `device` to
// cuda:LOCAL_RANK for a CUDA run and `threads` (when 0) to cores / local ranks. `fingerprint`
// identifies the run's options; ranks that disagree fail at start, naming `what`.
std::unique_ptr<dist::C10dCollectives> join_process_group(const DistFlags& flags, std::string& device, int& threads,
                                                          const std::string& what, uint64_t fingerprint);
#endif

}  // namespace bertpt::cli
