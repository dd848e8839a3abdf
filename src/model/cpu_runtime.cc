#include "model/cpu_runtime.h"

#include <sched.h>

#include <cstdlib>
#include <cstring>

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
