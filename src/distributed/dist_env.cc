#include "distributed/dist_env.h"

#include <cstdlib>

#include "common/error.h"
#include "common/warning.h"
#include "distributed/slurm_env.h"

namespace bertpt::distributed {

namespace {

using Getenv = std::function<const char*(const char*)>;

int parse_int(const char* name, const char* value) {
  char* end = nullptr;
  long v = std::strtol(value, &end, 10);
  if (!*value || *end || v < 0 || v > 1 << 24) {
    throw BadInput(std::string("environment variable ") + name + "='" + value + "' is not a valid number",
                   "check the launcher's environment");
  }
  return int(v);
}

// rank, world size, local rank (and local world size when `local_size` names a variable).
void read_ranks(const Getenv& get, DistEnv& e, const char* rank, const char* size, const char* local_rank,
                const char* local_size) {
  e.rank = parse_int(rank, get(rank));
  e.world_size = parse_int(size, get(size));
  if (const char* v = get(local_rank)) e.local_rank = parse_int(local_rank, v);
  if (local_size) {
    if (const char* v = get(local_size)) e.local_world_size = parse_int(local_size, v);
  }
}

// torchrun's workers (and bertpt's own launcher's, which sets BERTPT_LAUNCHED).
void read_torchrun(const Getenv& get, DistEnv& e) {
  read_ranks(get, e, "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE");
  e.launcher = get("BERTPT_LAUNCHED") ? "bertpt" : "torchrun";
  if (!get("LOCAL_WORLD_SIZE")) e.local_world_size = e.world_size;
  if (const char* v = get("TORCHELASTIC_USE_AGENT_STORE")) e.agent_store = std::string(v) == "True";
  if (const char* v = get("TORCHELASTIC_RESTART_COUNT")) e.restart_count = parse_int("TORCHELASTIC_RESTART_COUNT", v);
}

// An srun task: ranks from Slurm, and the rendezvous from the job's node list and id unless exported.
void read_slurm(const Getenv& get, DistEnv& e) {
  read_ranks(get, e, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", nullptr);
  e.launcher = "slurm";
  const int node = get("SLURM_NODEID") ? parse_int("SLURM_NODEID", get("SLURM_NODEID")) : 0;
  if (const char* v = get("SLURM_STEP_TASKS_PER_NODE")) {
    e.local_world_size = slurm_tasks_on_node(v, node);
  } else if (const char* v = get("SLURM_NTASKS_PER_NODE")) {
    e.local_world_size = slurm_tasks_on_node(v, node);
  }
  const char* nodes = get("SLURM_JOB_NODELIST") ? get("SLURM_JOB_NODELIST") : get("SLURM_NODELIST");
  if (nodes && !get("MASTER_ADDR")) e.master_addr = expand_slurm_hostlist(nodes).front();
  if (const char* job = get("SLURM_JOB_ID"); job && !get("MASTER_PORT")) e.master_port = slurm_job_port(job);
}

void check_consistency(const Getenv& get, const DistEnv& e) {
  if (e.master_port < 1 || e.master_port > 65535) {
    throw BadInput("MASTER_PORT " + std::to_string(e.master_port) + " is not a TCP port (1-65535)",
                   "export the rendezvous port node 0 listens on");
  }
  if (e.world_size < 1 || e.rank >= e.world_size) {
    throw BadInput("rank " + std::to_string(e.rank) + " is not below the world size " + std::to_string(e.world_size) +
                   " (from the " + e.launcher + " environment)");
  }
  if (e.local_world_size < 1 || e.local_rank >= e.local_world_size) {
    throw BadInput("local rank " + std::to_string(e.local_rank) + " is not below the local world size " +
                   std::to_string(e.local_world_size) + " (from the " + e.launcher + " environment)");
  }
  const bool address_known = e.launcher == "bertpt" || e.launcher == "torchrun" || get("MASTER_ADDR") ||
                             (e.launcher == "slurm" && (get("SLURM_JOB_NODELIST") || get("SLURM_NODELIST")));
  if (e.world_size > 1 && !address_known) {
    throw BadInput(e.launcher + " started " + std::to_string(e.world_size) + " processes but MASTER_ADDR is not set",
                   "export MASTER_ADDR (the first node's address) and MASTER_PORT before launching");
  }
}

}  // namespace

DistEnv detect_dist_env(const std::function<const char*(const char*)>& getenv_fn) {
  const Getenv get = [&](const char* name) -> const char* {
    const char* v = getenv_fn ? getenv_fn(name) : std::getenv(name);
    return v && *v ? v : nullptr;
  };
  DistEnv e;
  if (get("RANK") && get("WORLD_SIZE")) {
    read_torchrun(get, e);
  } else if (get("OMPI_COMM_WORLD_RANK") && get("OMPI_COMM_WORLD_SIZE")) {
    read_ranks(get, e, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
               "OMPI_COMM_WORLD_LOCAL_SIZE");
    e.launcher = "mpirun";
  } else if (get("SLURM_PROCID") && get("SLURM_NTASKS") && get("SLURM_STEP_ID")) {
    read_slurm(get, e);
  } else {
    // An sbatch script itself has SLURM_PROCID=0 and SLURM_NTASKS but is no task of a step (no
    // SLURM_STEP_ID): bertpt started there is one process, and the other tasks never come.
    if (get("SLURM_NTASKS") && !get("SLURM_STEP_ID") && std::atoi(get("SLURM_NTASKS")) > 1) {
      warn(std::string("this Slurm job has ") + get("SLURM_NTASKS") +
           " tasks but bertpt was started outside srun: it trains as one process (start it with srun)");
    }
    return e;  // a single process
  }
  if (const char* v = get("BERTPT_PROCESS_GROUP_FOR_ONE")) e.process_group_for_one = std::string(v) == "1";
  if (const char* v = get("MASTER_ADDR")) e.master_addr = v;
  if (const char* v = get("MASTER_PORT")) e.master_port = parse_int("MASTER_PORT", v);
  check_consistency(get, e);
  return e;
}

}  // namespace bertpt::distributed
