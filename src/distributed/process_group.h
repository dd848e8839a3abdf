// Joining the job's c10d process group under any launcher (bertpt's own, torchrun, mpirun, srun):
// the rendezvous environment (dist_env.h), the communicator and the engine's collectives on it.
// docs/distributed.md.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "distributed/c10d_collectives.h"

namespace bertpt::distributed {

// Under a launcher, this process's collectives (nullptr when it runs alone). Sets `device` to
// cuda:LOCAL_RANK for a CUDA run and `threads` (when 0) to cores / local ranks. A rank waits at
// most `timeout_seconds` in the rendezvous and in any collective. Every rank must be given the same
// `options` (the run's, as saved in run_config.json; "device" and "threads" may differ per rank):
// ranks that disagree fail at start, naming `what`.
std::unique_ptr<C10dCollectives> join_process_group(double timeout_seconds, std::string& device, int& threads,
                                                    const std::string& what, const nlohmann::json& options);

}  // namespace bertpt::distributed
