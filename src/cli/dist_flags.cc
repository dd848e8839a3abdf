#include "cli/dist_flags.h"

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "distributed/dist_env.h"

namespace bertpt::cli {

void add_dist_flags(CLI::App* cmd, DistFlags& d) {
  cmd->add_option("--nproc-per-node", d.launch.nproc_per_node,
                  "Start this many worker processes on this node (data-parallel, c10d Gloo on CPU / NCCL on CUDA); "
                  "not needed under torchrun, mpirun or srun")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--nnodes", d.launch.nnodes, "Nodes of a multi-node job (start bertpt on each)")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  cmd->add_option("--node-rank", d.launch.node_rank, "This node's index in a multi-node job")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--master-addr", d.launch.master_addr, "Address of node 0 (the rendezvous)")->capture_default_str();
  cmd->add_option("--master-port", d.launch.master_port,
                  "Rendezvous port (0: a free port; multi-node needs a fixed one)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--dist-timeout", d.timeout_seconds,
                  "Seconds a rank waits in a rendezvous or collective before the job fails")
      ->check(CLI::Range(1, 7 * 24 * 3600))
      ->capture_default_str();
}

void launch_workers_if_asked(const DistFlags& d, bool quiet) {
  if ((d.launch.nproc_per_node <= 1 && d.launch.nnodes <= 1) || distributed::launched_by_bertpt()) return;
  distributed::LaunchOptions lo = d.launch;
  lo.argv = program_args();
  lo.argv[0] = "/proc/self/exe";
  lo.quiet = quiet;
  std::fflush(nullptr);
  throw WorkersFinished{distributed::run_workers(lo)};
}

}  // namespace bertpt::cli
