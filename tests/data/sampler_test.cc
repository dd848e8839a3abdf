#include "data/sampler.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/error.h"

namespace bertpt::data {
namespace {

TEST(Permutation, IsABijectionForManySizes) {
  for (uint64_t n : {1u, 2u, 3u, 7u, 64u, 100u, 1000u, 4097u}) {
    Permutation p(n, 42);
    std::vector<bool> seen(n, false);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v = p(i);
      ASSERT_LT(v, n);
      EXPECT_FALSE(seen[v]) << "n=" << n << " value " << v << " twice";
      seen[v] = true;
    }
  }
}

TEST(Sampler, EverySampleOncePerEpochAndEpochsDiffer) {
  const uint64_t n = 997;
  Sampler s(n, 7);
  std::vector<uint64_t> e0, e1;
  for (uint64_t i = 0; i < n; ++i) e0.push_back(s.sample_at(i));
  for (uint64_t i = 0; i < n; ++i) e1.push_back(s.sample_at(n + i));
  EXPECT_EQ(std::set<uint64_t>(e0.begin(), e0.end()).size(), n);
  EXPECT_EQ(std::set<uint64_t>(e1.begin(), e1.end()).size(), n);
  EXPECT_NE(e0, e1);
  size_t in_place = 0;
  for (uint64_t i = 0; i < n; ++i) in_place += e0[i] == i;
  EXPECT_LT(in_place, 20u) << "hardly shuffled";
}

TEST(Sampler, SameSeedSameOrderAndO1Seek) {
  Sampler a(1'000'000'007ull, 3), b(1'000'000'007ull, 3), c(1'000'000'007ull, 4);
  // Far positions are computed directly, without replaying anything before them.
  for (uint64_t pos : {0ull, 1ull, 123456789ull, 999'999'999'999ull}) {
    EXPECT_EQ(a.sample_at(pos), b.sample_at(pos));
  }
  int same = 0;
  for (uint64_t pos = 0; pos < 100; ++pos) same += a.sample_at(pos) == c.sample_at(pos);
  EXPECT_LT(same, 5);
}

TEST(Sampler, RankSlicesAreDisjointAndCoverTheBatch) {
  const uint64_t B = 32, world = 4;
  for (uint64_t step : {0u, 1u, 17u}) {
    std::set<uint64_t> covered;
    for (uint64_t r = 0; r < world; ++r) {
      uint64_t begin = Sampler::rank_slice_begin(step, B, r, world);
      for (uint64_t k = 0; k < B / world; ++k) EXPECT_TRUE(covered.insert(begin + k).second);
    }
    EXPECT_EQ(covered.size(), B);
    EXPECT_EQ(*covered.begin(), step * B);
    EXPECT_EQ(*covered.rbegin(), step * B + B - 1);
  }
  EXPECT_THROW(Sampler::rank_slice_begin(0, 30, 0, 4), BadInput);
  EXPECT_THROW(Sampler(0, 1), BadInput);
}

TEST(Sampler, UnshuffledIsTheIdentity) {
  Sampler s(10, 1, false);
  for (uint64_t i = 0; i < 25; ++i) EXPECT_EQ(s.sample_at(i), i % 10);
}

}  // namespace
}  // namespace bertpt::data
