#include "model/cpu_runtime.h"

#include <sched.h>

#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace bertpt::model {

bool keep_freed_memory_mapped() {
#if defined(__GLIBC__)
  // M_MMAP_MAX 0: large blocks come from the heap too. M_TRIM_THRESHOLD: never give the top of the
  // heap back. M_TOP_PAD: grow the heap in 64 MB steps instead of a page at a time.
  bool ok = mallopt(M_MMAP_MAX, 0) == 1;
  ok = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1 && ok;
  ok = mallopt(M_TOP_PAD, 64 << 20) == 1 && ok;
  return ok;
#else
  return false;
#endif
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
