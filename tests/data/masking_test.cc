#include "data/masking.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bertpt::data {
namespace {

MaskingOptions options() {
  MaskingOptions o;
  o.mask_id = 4;
  o.vocab_size = 1000;
  o.never_mask = {0, 2, 3};
  return o;
}

std::vector<int64_t> sample(size_t n) {
  std::vector<int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = 10 + int64_t(i % 900);
  ids[0] = 2;
  ids[n / 2] = 3;
  ids[n - 1] = 0;
  return ids;
}

TEST(Masking, RatesMatchHuggingFacesCollator) {
  auto o = options();
  const size_t L = 512;
  auto ids = sample(L);
  std::vector<int64_t> in(L), labels(L);
  MaskCounts total;
  uint64_t kept = 0, label_ok = 0;
  for (uint64_t s = 0; s < 400; ++s) {
    auto c = mask_tokens(o, 1, 0, s, ids.data(), in.data(), labels.data(), L);
    total.candidates += c.candidates;
    total.selected += c.selected;
    total.masked += c.masked;
    total.randomized += c.randomized;
    for (size_t i = 0; i < L; ++i) {
      if (labels[i] != kIgnoreLabel) {
        label_ok += labels[i] == ids[i];
        kept += in[i] == ids[i];
      } else {
        EXPECT_EQ(in[i], ids[i]) << "unselected position changed";
      }
    }
  }
  double sel = double(total.selected) / double(total.candidates);
  EXPECT_NEAR(sel, 0.15, 0.005);
  EXPECT_NEAR(double(total.masked) / double(total.selected), 0.8, 0.01);
  EXPECT_NEAR(double(total.randomized) / double(total.selected), 0.1, 0.01);
  EXPECT_EQ(label_ok, total.selected);
  // The unchanged 10% (plus random draws that hit the original id) keep their token.
  EXPECT_NEAR(double(kept) / double(total.selected), 0.1, 0.01);
  EXPECT_EQ(total.candidates, 400u * (L - 3));
}

TEST(Masking, NeverMasksSpecialTokensOrPadding) {
  auto o = options();
  std::vector<int64_t> ids = {2, 0, 3, 0, 2, 3};
  std::vector<int64_t> in(6), labels(6);
  for (uint64_t s = 0; s < 1000; ++s) {
    auto c = mask_tokens(o, 9, 0, s, ids.data(), in.data(), labels.data(), 6);
    EXPECT_EQ(c.selected, 0u);
    EXPECT_EQ(in, ids);
  }
}

TEST(Masking, PureFunctionOfSeedEpochAndSample) {
  auto o = options();
  auto ids = sample(128);
  std::vector<int64_t> a(128), la(128), b(128), lb(128);
  mask_tokens(o, 5, 2, 77, ids.data(), a.data(), la.data(), 128);
  mask_tokens(o, 5, 2, 77, ids.data(), b.data(), lb.data(), 128);
  EXPECT_EQ(a, b);
  EXPECT_EQ(la, lb);
  mask_tokens(o, 5, 3, 77, ids.data(), b.data(), lb.data(), 128);
  EXPECT_NE(la, lb) << "a new epoch must draw a new mask (dynamic masking)";
  mask_tokens(o, 5, 2, 78, ids.data(), b.data(), lb.data(), 128);
  EXPECT_NE(la, lb);
  mask_tokens(o, 6, 2, 77, ids.data(), b.data(), lb.data(), 128);
  EXPECT_NE(la, lb);
}

TEST(Masking, RandomReplacementsAreInTheVocabulary) {
  auto o = options();
  o.mask_fraction = 0;
  o.random_fraction = 1;
  o.mlm_probability = 1;
  auto ids = sample(256);
  std::vector<int64_t> in(256), labels(256);
  mask_tokens(o, 1, 0, 0, ids.data(), in.data(), labels.data(), 256);
  int changed = 0;
  for (size_t i = 0; i < 256; ++i) {
    EXPECT_GE(in[i], 0);
    EXPECT_LT(in[i], 1000);
    changed += in[i] != ids[i];
  }
  EXPECT_GT(changed, 240);
}

}  // namespace
}  // namespace bertpt::data
