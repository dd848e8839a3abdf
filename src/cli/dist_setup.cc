#include "cli/dist_setup.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "launch/dist_env.h"

namespace bertpt::cli {

void add_dist_flags(CLI::App* cmd, DistFlags& d) {
  cmd->add_option("--nproc-per-node", d.launch.nproc_per_node,
                  "Start this many worker processes on this node (data-parallel, c10d Gloo on CPU / NCCL on CUDA); "
                  "not needed under torchrun, mpirun or srun")
      ->capture_default_str();
  cmd->add_option("--nnodes", d.launch.nnodes, "Nodes of a multi-node job (start bertpt on each)")->capture_default_str();
  cmd->add_option("--node-rank", d.launch.node_rank, "This node's index in a multi-node job")->capture_default_str();
  cmd->add_option("--master-addr", d.launch.master_addr, "Address of node 0 (the rendezvous)")->capture_default_str();
  cmd->add_option("--master-port", d.launch.master_port, "Rendezvous port (0: a free port; multi-node needs a fixed one)")
      ->capture_default_str();
  cmd->add_option("--dist-timeout", d.timeout_seconds,
                  "Seconds a rank waits in a rendezvous or collective before the job fails")
      ->capture_default_str();
}

void launch_workers_if_asked(const DistFlags& d, bool quiet) {
  if ((d.launch.nproc_per_node <= 1 && d.launch.nnodes <= 1) || launch::launched_by_bertpt()) return;
  launch::LaunchOptions lo = d.launch;
  lo.argv = program_args();
  lo.argv[0] = "/proc/self/exe";
  lo.quiet = quiet;
  std::fflush(nullptr);
  std::exit(launch::run_workers(lo));
}

#ifdef BERTPT_HAVE_TORCH
std::unique_ptr<dist::C10dCollectives> join_process_group(const DistFlags& d, std::string& device, int& threads,
                                                          const std::string& what, uint64_t fingerprint) {
  const launch::DistEnv env = launch::detect_dist_env();
  if (!env.distributed()) return nullptr;
  const bool cuda = device.rfind("cuda", 0) == 0;
  if (cuda) device = "cuda:" + std::to_string(env.local_rank);
  if (threads == 0) {
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    threads = int(std::max<long>(1, cores / env.local_world_size));
  }
  dist::CommunicatorOptions co;
  co.timeout = std::chrono::milliseconds(int64_t(d.timeout_seconds * 1000));
  co.use_cuda = cuda;
  auto collectives = std::make_unique<dist::C10dCollectives>(dist::make_communicator(env, co));
  collectives->communicator().check_same(what, fingerprint);
  return collectives;
}
#endif

}  // namespace bertpt::cli
