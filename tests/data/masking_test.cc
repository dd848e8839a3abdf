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

// Whole-word masking: a word (a token and the "##" tokens after it) is selected whole or not at all;
// a "##" token right after a special token starts a word of its own; words are selected at the
// mlm_probability rate; the token-level draw is unchanged when no continuations are given.
TEST(Masking, WholeWordsAreSelectedWholeAtTheWordRate) {
  // ids: 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK] 5 "over" 6 "##lap" 7 "##ping" 8 "word"
  MaskingOptions o;
  o.vocab_size = 9;
  o.never_mask = {0, 2, 3};
  const std::vector<int64_t> ids = {2, 5, 6, 7, 8, 5, 6, 3, 7, 8, 8, 5, 7, 6, 3, 0};
  const std::vector<std::vector<size_t>> words = {{1, 2, 3}, {4}, {5, 6}, {8}, {9}, {10}, {11, 12, 13}};
  std::vector<int64_t> in(ids.size()), lab(ids.size()), token_in(ids.size()), token_lab(ids.size());
  MaskingOptions token_level = o;
  o.continues_word = wordpiece_continuations(
      {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "over", "##lap", "##ping", "word"});
  ASSERT_EQ(o.continues_word, (std::vector<bool>{false, false, false, false, false, false, true, true, false}));
  size_t selected_words = 0, draws = 0, changed = 0;
  for (uint64_t sample = 0; sample < 4000; ++sample) {
    mask_tokens(o, 34, 0, sample, ids.data(), in.data(), lab.data(), ids.size());
    for (const auto& w : words) {
      const bool first = lab[w[0]] != kIgnoreLabel;
      for (size_t p : w) ASSERT_EQ(lab[p] != kIgnoreLabel, first) << "sample " << sample << " position " << p;
      selected_words += first, ++draws;
    }
    for (size_t p : {size_t(0), size_t(7), size_t(14), size_t(15)}) EXPECT_EQ(lab[p], kIgnoreLabel);
    // The first token of each word draws exactly as token-level masking does.
    mask_tokens(token_level, 34, 0, sample, ids.data(), token_in.data(), token_lab.data(), ids.size());
    for (const auto& w : words) changed += (lab[w[0]] != token_lab[w[0]]);
  }
  const double rate = double(selected_words) / double(draws);
  const double sigma = std::sqrt(0.15 * 0.85 / double(draws));
  EXPECT_NEAR(rate, 0.15, 4 * sigma);
  EXPECT_EQ(changed, 0u);
}

}  // namespace
}  // namespace bertpt::data
