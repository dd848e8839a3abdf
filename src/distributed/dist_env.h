// Where this process stands in a distributed job, read from the launcher's environment:
//   bertpt's own launcher and torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
//                                       MASTER_PORT
//   torchrun's agent, besides:         TORCHELASTIC_USE_AGENT_STORE=True (the agent hosts the TCPStore
//                                       at MASTER_ADDR:MASTER_PORT: every rank joins it as a client),
//                                       TORCHELASTIC_RESTART_COUNT (keys of each restart kept apart)
//   OpenMPI (mpirun):                  OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//   Slurm (srun):                      SLURM_STEP_ID (a task of a step, not the batch script),
//                                       SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NODEID,
//                                       SLURM_STEP_TASKS_PER_NODE; MASTER_ADDR/MASTER_PORT, when not
//                                       exported, from SLURM_JOB_NODELIST and SLURM_JOB_ID
//                                       (distributed/slurm_env.h)
// MPI gives no rendezvous address: MASTER_ADDR must be exported (docs/distributed.md shows how); the
// communication itself is PyTorch c10d (Gloo/NCCL) over a TCPStore rendezvous.
#pragma once

#include <functional>
#include <string>

namespace bertpt::distributed {

struct DistEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string launcher = "none";  // "none", "bertpt", "torchrun", "mpirun", "slurm"
  // Under torchrun's agent: the store at MASTER_ADDR:MASTER_PORT is the agent's (rank 0 must not
  // start a second one), and it outlives a restart of the workers (TORCHELASTIC_RESTART_COUNT).
  bool agent_store = false;
  int restart_count = 0;
  // BERTPT_PROCESS_GROUP_FOR_ONE=1 (with a launcher's variables): a real process group even for one
  // rank, the only way to exercise NCCL on a one-GPU machine (NCCL refuses two ranks on one device).
  bool process_group_for_one = false;
  bool distributed() const { return world_size > 1 || process_group_for_one; }
};

// Reads the environment through `getenv` (std::getenv by default; tests pass their own). Throws
// BadInput naming the variable when a value is malformed or inconsistent.
DistEnv detect_dist_env(const std::function<const char*(const char*)>& getenv = nullptr);

}  // namespace bertpt::distributed
