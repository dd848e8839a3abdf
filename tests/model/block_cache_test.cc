// BlockCache (reuse of large CPU blocks) and its installation as LibTorch's CPU allocator.
#include "model/block_cache.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "model/cpu_runtime.h"

namespace bertpt::model {
namespace {

constexpr std::size_t MiB = std::size_t(1) << 20;

bool aligned_2mib(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % BlockCache::kPage == 0; }

TEST(BlockCache, ReusesAFreedBlockOfTheSameSize) {
  BlockCache cache;
  void* a = cache.allocate(10 * MiB);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(aligned_2mib(a));
  std::memset(a, 0xAB, 10 * MiB);  // the whole request is writable
  EXPECT_TRUE(cache.release(a));
  void* b = cache.allocate(10 * MiB - 123);  // rounds to the same 2 MiB multiple
  EXPECT_EQ(a, b);
  const auto s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.live_bytes, 10 * MiB);
  EXPECT_EQ(s.idle_bytes, 0u);
  EXPECT_TRUE(cache.release(b));
}

TEST(BlockCache, DoesNotHandOutABlockMuchLargerThanAsked) {
  BlockCache cache;  // max_slack 25%
  void* big = cache.allocate(64 * MiB);
  cache.release(big);
  void* small = cache.allocate(8 * MiB);  // 64 MiB would waste 8x: a new mapping instead
  EXPECT_NE(small, big);
  void* near = cache.allocate(56 * MiB);  // within 25% of 64 MiB: reused
  EXPECT_EQ(near, big);
  EXPECT_EQ(cache.stats().hits, 1u);
  cache.release(small);
  cache.release(near);
}

TEST(BlockCache, PicksTheSmallestFittingBlock) {
  BlockCache cache;
  void* b12 = cache.allocate(12 * MiB);
  void* b10 = cache.allocate(10 * MiB);
  cache.release(b12);
  cache.release(b10);
  EXPECT_EQ(cache.allocate(10 * MiB), b10);
  EXPECT_EQ(cache.allocate(10 * MiB), b12);  // 12 ≤ 10 · 1.25
  cache.release(b10);
  cache.release(b12);
}

TEST(BlockCache, IdleMemoryStaysWithinThePeakOfLiveMemory) {
  BlockCache::Options o;
  o.min_idle_cap_bytes = 8 * MiB;
  BlockCache cache(o);
  // Peak live: 16 MiB. Then blocks of ever new sizes come and go: without a cap they would pile up.
  void* a = cache.allocate(8 * MiB);
  void* b = cache.allocate(8 * MiB);
  cache.release(a);
  cache.release(b);
  for (std::size_t mib = 20; mib < 200; mib += 20) {
    void* p = cache.allocate(mib * MiB / 4);  // 5, 10, 15 ... MiB: no reuse within 25% across steps of 5
    cache.release(p);
    const auto s = cache.stats();
    EXPECT_LE(s.idle_bytes, s.peak_live_bytes) << "after a " << mib / 4 << " MiB block";
  }
  EXPECT_GT(cache.stats().unmapped, 0u);
  cache.trim();
  EXPECT_EQ(cache.stats().idle_bytes, 0u);
}

TEST(BlockCache, ReleaseOfAForeignPointerIsRefused) {
  BlockCache cache;
  int x = 0;
  EXPECT_FALSE(cache.release(&x));
  EXPECT_FALSE(cache.release(nullptr));
}

TEST(BlockCache, ConcurrentUseKeepsBlocksDisjoint) {
  BlockCache cache;
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::size_t n = (1 + (i + t) % 3) * 2 * MiB;
        auto* p = static_cast<unsigned char*>(cache.allocate(n));
        std::memset(p, t + 1, n);
        for (std::size_t k = 0; k < n; k += 4096) failures[t] += p[k] != t + 1;  // nobody else wrote here
        cache.release(p);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  EXPECT_EQ(cache.stats().live_bytes, 0u);
}

TEST(CpuBlockCache, ServesLibTorchsLargeTensorsAndReusesThem) {
  ASSERT_TRUE(use_block_cache_for_cpu_tensors());
  const auto before = cpu_block_cache_stats().value();
  std::set<const void*> seen;
  for (int step = 0; step < 3; ++step) {
    at::Tensor t = at::ones({1024, 1024}, at::kFloat);  // 4 MiB: from the cache
    EXPECT_TRUE(aligned_2mib(t.data_ptr()));
    EXPECT_EQ(t.sum().item<double>(), 1024.0 * 1024.0);
    seen.insert(t.data_ptr());
  }
  EXPECT_EQ(seen.size(), 1u) << "the same block serves every step";
  const auto after = cpu_block_cache_stats().value();
  EXPECT_GE(after.hits - before.hits, 2u);
  at::Tensor small = at::ones({16}, at::kFloat);  // below 1 MiB: plain malloc, 64-byte aligned
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data_ptr()) % 64, 0u);
  EXPECT_EQ(small.sum().item<double>(), 16.0);
}

}  // namespace
}  // namespace bertpt::model
