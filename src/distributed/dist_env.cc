#include "distributed/dist_env.h"

#include <cstdlib>

#include "common/error.h"

namespace bertpt::distributed {

namespace {

int parse_int(const char* name, const char* value) {
  char* end = nullptr;
  long v = std::strtol(value, &end, 10);
  if (!*value || *end || v < 0 || v > 1 << 24) {
    throw BadInput(std::string("environment variable ") + name + "='" + value + "' is not a valid number",
                   "check the launcher's environment");
  }
  return int(v);
}

}  // namespace

DistEnv detect_dist_env(const std::function<const char*(const char*)>& getenv_fn) {
  auto get = [&](const char* name) -> const char* {
    const char* v = getenv_fn ? getenv_fn(name) : std::getenv(name);
    return v && *v ? v : nullptr;
  };
  DistEnv e;
  auto read = [&](const char* rank, const char* size, const char* local_rank, const char* local_size) {
    e.rank = parse_int(rank, get(rank));
    e.world_size = parse_int(size, get(size));
    if (const char* v = get(local_rank)) e.local_rank = parse_int(local_rank, v);
    if (local_size) {
      if (const char* v = get(local_size)) e.local_world_size = parse_int(local_size, v);
    }
  };
  if (get("RANK") && get("WORLD_SIZE")) {
    read("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE");
    e.launcher = get("BERTPT_LAUNCHED") ? "bertpt" : "torchrun";
    if (!get("LOCAL_WORLD_SIZE")) e.local_world_size = e.world_size;
  } else if (get("OMPI_COMM_WORLD_RANK") && get("OMPI_COMM_WORLD_SIZE")) {
    read("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE");
    e.launcher = "mpirun";
  } else if (get("SLURM_PROCID") && get("SLURM_NTASKS")) {
    read("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", nullptr);
    // "4" or "4(x2)" or "4,2": the tasks on this node come first.
    if (const char* v = get("SLURM_NTASKS_PER_NODE") ? get("SLURM_NTASKS_PER_NODE")
                                                     : get("SLURM_STEP_TASKS_PER_NODE")) {
      e.local_world_size = std::atoi(v) > 0 ? std::atoi(v) : 1;
    }
    e.launcher = "slurm";
  } else {
    return e;  // a single process
  }
  if (const char* v = get("BERTPT_PROCESS_GROUP_FOR_ONE")) e.process_group_for_one = std::string(v) == "1";
  if (const char* v = get("MASTER_ADDR")) e.master_addr = v;
  if (const char* v = get("MASTER_PORT")) e.master_port = parse_int("MASTER_PORT", v);
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
  if (e.world_size > 1 && e.launcher != "bertpt" && e.launcher != "torchrun" && !get("MASTER_ADDR")) {
    throw BadInput(e.launcher + " started " + std::to_string(e.world_size) + " processes but MASTER_ADDR is not set",
                   "export MASTER_ADDR (the first node's address) and MASTER_PORT before launching");
  }
  return e;
}

}  // namespace bertpt::distributed
