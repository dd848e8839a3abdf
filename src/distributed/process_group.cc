#include "distributed/process_group.h"

#include <torch/cuda.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "common/hash.h"
#include "distributed/dist_env.h"

namespace bertpt::distributed {

namespace {

// LOCAL_RANK (SLURM_LOCALID, ...) picks the GPU among those this process sees. Where the launcher
// already gave each task its own GPUs (`srun --gpus-per-task=1` sets CUDA_VISIBLE_DEVICES per task),
// fewer GPUs are visible than there are local ranks, and the rank takes its share of those.
int cuda_device_of(const DistEnv& env) {
  const int visible = int(torch::cuda::device_count());
  return visible > 0 && visible < env.local_world_size ? env.local_rank % visible : env.local_rank;
}

}  // namespace

std::unique_ptr<C10dCollectives> join_process_group(double timeout_seconds, std::string& device, int& threads,
                                                    const std::string& what, const nlohmann::json& options) {
  const DistEnv env = detect_dist_env();
  if (!env.distributed()) return nullptr;
  const bool cuda = device.rfind("cuda", 0) == 0;
  if (cuda) device = "cuda:" + std::to_string(cuda_device_of(env));
  if (threads == 0) {
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    threads = int(std::max<long>(1, cores / env.local_world_size));
  }
  CommunicatorOptions co;
  co.timeout = std::chrono::milliseconds(int64_t(timeout_seconds * 1000));
  co.use_cuda = cuda;
  auto collectives = std::make_unique<C10dCollectives>(make_communicator(env, co));
  nlohmann::json shared = options;  // what every rank must agree on: all but its device and threads
  shared.erase("device");
  shared.erase("threads");
  collectives->communicator().check_same(what, hash64(shared.dump()));
  return collectives;
}

}  // namespace bertpt::distributed
