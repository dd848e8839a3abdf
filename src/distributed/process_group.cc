#include "distributed/process_group.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "distributed/dist_env.h"

namespace bertpt::distributed {

std::unique_ptr<C10dCollectives> join_process_group(double timeout_seconds, std::string& device, int& threads,
                                                    const std::string& what, uint64_t fingerprint) {
  const DistEnv env = detect_dist_env();
  if (!env.distributed()) return nullptr;
  const bool cuda = device.rfind("cuda", 0) == 0;
  if (cuda) device = "cuda:" + std::to_string(env.local_rank);
  if (threads == 0) {
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    threads = int(std::max<long>(1, cores / env.local_world_size));
  }
  CommunicatorOptions co;
  co.timeout = std::chrono::milliseconds(int64_t(timeout_seconds * 1000));
  co.use_cuda = cuda;
  auto collectives = std::make_unique<C10dCollectives>(make_communicator(env, co));
  collectives->communicator().check_same(what, fingerprint);
  return collectives;
}

}  // namespace bertpt::distributed
