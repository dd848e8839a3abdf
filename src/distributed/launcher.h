// bertpt's own launcher, like torchrun or gaudi_spawn.py: `bertpt train --nproc-per-node N …` starts
// N copies of itself with the rendezvous environment (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, BERTPT_LAUNCHED=1), forwards SIGINT/SIGTERM to them,
// and as soon as one fails stops the others (SIGTERM, then SIGKILL after a grace period) and exits
// non-zero naming the rank.
#pragma once

#include <string>
#include <vector>

namespace bertpt::distributed {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;            // 0: a free local port (single node only)
  double grace_seconds = 10;      // between SIGTERM and SIGKILL when stopping workers
  std::vector<std::string> argv;  // the worker command line (argv[0] is the program)
  bool quiet = false;
};

// Runs the workers to completion. Returns 0 when all succeed, else the exit status of the first
// worker that failed (128 + signal for a worker killed by a signal). Throws BadInput for bad options.
int run_workers(const LaunchOptions& options);

// True when this process was started by run_workers (so it must not launch again).
bool launched_by_bertpt();

// A TCP port on 127.0.0.1 that was free a moment ago.
int find_free_port();

}  // namespace bertpt::distributed
