#include "model/block_cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace bertpt::model {

BlockCache::BlockCache() : BlockCache(Options{}) {}
BlockCache::BlockCache(Options options) : options_(options) {}

BlockCache::~BlockCache() { trim(); }

void* BlockCache::map_new(std::size_t bytes) {
  // Over-map by one page and cut the ends off, so the block starts on a 2 MiB boundary and can be
  // backed by huge pages from its first byte.
  const std::size_t span = bytes + kPage;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t start = (base + kPage - 1) / kPage * kPage;
  if (start > base) munmap(raw, start - base);
  const std::uintptr_t end = start + bytes, raw_end = base + span;
  if (raw_end > end) munmap(reinterpret_cast<void*>(end), raw_end - end);
  void* p = reinterpret_cast<void*>(start);
#ifdef MADV_HUGEPAGE
  if (options_.huge_pages) madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
#endif
  return p;
}

void* BlockCache::allocate(std::size_t bytes) {
  const std::size_t want = round_up(std::max<std::size_t>(bytes, 1));
  const auto limit = static_cast<std::size_t>(static_cast<double>(want) * (1.0 + options_.max_slack));
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = idle_.lower_bound(want);
    if (it != idle_.end() && it->first <= limit) {
      const std::size_t size = it->first;
      void* p = it->second.p;
      idle_.erase(it);
      stats_.idle_bytes -= size;
      live_.emplace(p, size);
      stats_.live_bytes += size;
      stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
      ++stats_.hits;
      return p;
    }
  }
  void* p = map_new(want);  // outside the lock: mmap can take a while
  std::lock_guard<std::mutex> lock(mu_);
  live_.emplace(p, want);
  stats_.live_bytes += want;
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
  ++stats_.misses;
  return p;
}

bool BlockCache::release(void* p) {
  if (p == nullptr) return false;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(p);
  if (it == live_.end()) return false;
  const std::size_t size = it->second;
  live_.erase(it);
  stats_.live_bytes -= size;
  idle_.emplace(size, Idle{p, ++clock_});
  stats_.idle_bytes += size;
  shrink_idle_locked();
  return true;
}

void BlockCache::shrink_idle_locked() {
  const std::size_t cap = std::max(stats_.peak_live_bytes, options_.min_idle_cap_bytes);
  while (stats_.idle_bytes > cap && !idle_.empty()) {
    auto oldest = std::min_element(idle_.begin(), idle_.end(),
                                   [](const auto& a, const auto& b) { return a.second.freed_at < b.second.freed_at; });
    munmap(oldest->second.p, oldest->first);
    stats_.idle_bytes -= oldest->first;
    ++stats_.unmapped;
    idle_.erase(oldest);
  }
}

void BlockCache::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [size, block] : idle_) {
    munmap(block.p, size);
    ++stats_.unmapped;
  }
  idle_.clear();
  stats_.idle_bytes = 0;
}

BlockCache::Stats BlockCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace bertpt::model
