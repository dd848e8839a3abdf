// A cache of large, page-aligned memory blocks for CPU tensors. Plain C++ (no LibTorch).
//
// Why: a training step frees and re-allocates the same big tensors every step (activations,
// gradients, the [masked tokens × vocab] logits). glibc serves blocks above its mmap threshold with
// fresh mappings, so each step page-faults them in again, and on this VM a 4 KiB fault costs ~6 µs:
// 0.12 s for one 78 MB logits tensor, over a second per bert-base step. Keeping the blocks mapped
// and handing them out again (as LibTorch's CUDA caching allocator does for device memory) removes
// the faults from the steady state; asking for transparent huge pages makes the first touch cheap.
//
// Policy: a request is rounded up to a whole number of 2 MiB pages and served by the smallest idle
// block that is at least that large and at most `max_slack` larger; otherwise a new mapping is made.
// Idle blocks are kept while their total stays within the peak of live bytes seen so far (at least
// `min_idle_cap_bytes`), so memory stays below twice the peak of a step; beyond that the
// least recently freed are unmapped. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

namespace bertpt::model {

class BlockCache {
 public:
  struct Options {
    double max_slack = 0.25;  // reuse a block at most 25% larger than the request
    std::size_t min_idle_cap_bytes = 256u << 20;
    bool huge_pages = true;  // madvise(MADV_HUGEPAGE) on new mappings
  };
  struct Stats {
    std::size_t live_bytes = 0, idle_bytes = 0, peak_live_bytes = 0;
    std::uint64_t hits = 0, misses = 0, unmapped = 0;
  };

  static constexpr std::size_t kPage = std::size_t(2) << 20;

  BlockCache();
  explicit BlockCache(Options options);
  ~BlockCache();  // unmaps the idle blocks; live ones belong to their owners until release()
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // At least `bytes` of memory, 2 MiB-aligned. Throws std::bad_alloc when the kernel refuses.
  void* allocate(std::size_t bytes);
  // Gives back a pointer from allocate() and returns true; returns false (doing nothing) for a
  // pointer this cache did not hand out, so one deleter can serve several sources.
  bool release(void* p);
  // Unmaps every idle block.
  void trim();
  Stats stats() const;

  // The rounding applied to requests.
  static std::size_t round_up(std::size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

 private:
  void* map_new(std::size_t bytes);
  void shrink_idle_locked();

  struct Idle {
    void* p;
    std::uint64_t freed_at;
  };
  Options options_;
  mutable std::mutex mu_;
  std::multimap<std::size_t, Idle> idle_;        // size -> idle block
  std::unordered_map<void*, std::size_t> live_;  // pointer -> mapped size
  Stats stats_;
  std::uint64_t clock_ = 0;
};

}  // namespace bertpt::model
