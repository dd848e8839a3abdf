// Process-wide settings a CPU training run needs; call once at start-up, before the first step.
#pragma once

#include <optional>

#include "model/block_cache.h"

namespace bertpt::model {

// Serves LibTorch's CPU tensors of 1 MiB and more from a process-wide BlockCache (block_cache.h):
// a training step then reuses the same mapped memory every step instead of page-faulting its big
// tensors in again (measured in docs/benchmarks.md). Idempotent. BERTPT_CPU_BLOCK_CACHE=0 in the
// environment leaves LibTorch's own allocator in place. Returns whether the cache is in use.
bool use_block_cache_for_cpu_tensors();

// The cache's counters, when use_block_cache_for_cpu_tensors() installed it.
std::optional<BlockCache::Stats> cpu_block_cache_stats();

// How many threads at::parallel_for gives a bertpt CPU kernel (a translation unit compiled with
// OpenMP, like ops.cc) right now: equal to at::get_num_threads() when bertpt's kernels and LibTorch
// share one OpenMP runtime (CMakeLists.txt links LibTorch's own libgomp), so `--threads N` means N.
int kernel_thread_team_size();

// The number of CPUs this process may run on (sched_getaffinity), at least 1. LibTorch's own
// default counts physical cores through cpuinfo and picks 1 on some VMs.
int available_cpus();

}  // namespace bertpt::model
