// Where this process stands in a distributed job, read from the launcher's environment:
//   bertpt's own launcher and torchrun: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
//                                       MASTER_PORT
//   OpenMPI (mpirun):                  OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//   Slurm (srun):                      SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID,
//                                       SLURM_NTASKS_PER_NODE (or SLURM_STEP_TASKS_PER_NODE)
// MPI and Slurm give no rendezvous address: MASTER_ADDR/MASTER_PORT must be exported (our docs show
// how); the communication itself is PyTorch c10d (Gloo/NCCL) over a TCPStore rendezvous.
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
  // BERTPT_PROCESS_GROUP_FOR_ONE=1 (with a launcher's variables): a real process group even for one
  // rank, the only way to exercise NCCL on a one-GPU machine (NCCL refuses two ranks on one device).
  bool process_group_for_one = false;
  bool distributed() const { return world_size > 1 || process_group_for_one; }
};

// Reads the environment through `getenv` (std::getenv by default; tests pass their own). Throws
// BadInput naming the variable when a value is malformed or inconsistent.
DistEnv detect_dist_env(const std::function<const char*(const char*)>& getenv = nullptr);

}  // namespace bertpt::distributed
