#include "model/cpu_runtime.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "model/cpu_kernel.h"
#include "model/torch_compat.h"

namespace bertpt::model {

namespace {

// Never destroyed: tensors may be freed by static destructors after main() returns.
BlockCache* g_cache = nullptr;

void* cache_allocate(std::size_t bytes) { return g_cache->allocate(bytes); }
bool cache_release(void* p) { return g_cache->release(p); }

bool install() {
  const char* env = std::getenv("BERTPT_CPU_BLOCK_CACHE");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  g_cache = new BlockCache();
  torch_compat::set_cpu_allocator(&cache_allocate, &cache_release, /*min_bytes=*/std::size_t(1) << 20);
  return true;
}

}  // namespace

bool use_block_cache_for_cpu_tensors() {
  static const bool installed = install();  // thread-safe, once
  return installed;
}

std::optional<BlockCache::Stats> cpu_block_cache_stats() {
  if (g_cache == nullptr) return std::nullopt;
  return g_cache->stats();
}

int kernel_thread_team_size() {
  std::mutex mu;
  std::set<std::thread::id> seen;
  // at::parallel_for (OpenMP) gives each thread of its team one contiguous chunk: with more items
  // than threads, every thread of the team runs the body once.
  const int64_t items = 4 * std::max(at::get_num_threads(), available_cpus());
  at::parallel_for(0, items, 1, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  });
  return int(seen.size());
}

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return 1;
}

}  // namespace bertpt::model
