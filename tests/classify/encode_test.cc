// Classification inputs: longest_first truncation and the special tokens around truncated sequences,
// on a tiny hand-made vocabulary (peer_encode_example_test.cc checks real text against HF).
#include <gtest/gtest.h>

#include <algorithm>

#include "classify/encode.h"
#include "common/error.h"

namespace bertpt::classify {
namespace {

using tokenizer::Tokenizer;

// [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4 a=5 b=6 c=7 d=8 ##s=9 ("as" is two tokens)
Tokenizer tiny() {
  return Tokenizer::bert({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "d", "##s"},
                         tokenizer::NormalizerOptions{}, {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"});
}

std::string repeat(const std::string& word, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i ? " " : "") + word;
  return s;
}

TEST(LongestFirst, HfUnitTestTable) {
  // tokenizers/src/utils/truncation.rs, test truncate_encodings_longest_first, max_length 7.
  struct Case {
    size_t a, b, keep_a, keep_b;
  };
  const Case cases[] = {{0, 0, 0, 0}, {0, 2, 0, 2}, {0, 8, 0, 7}, {2, 8, 2, 5}, {4, 4, 3, 4},
                        {4, 8, 3, 4}, {8, 2, 5, 2}, {8, 4, 4, 3}, {8, 8, 3, 4}};
  for (const Case& c : cases) {
    const auto [ka, kb] = longest_first_lengths(c.a, c.b, 7);
    EXPECT_EQ(ka, c.keep_a) << "(" << c.a << ", " << c.b << ")";
    EXPECT_EQ(kb, c.keep_b) << "(" << c.a << ", " << c.b << ")";
  }
}

TEST(LongestFirst, EdgesOfTheBudget) {
  EXPECT_EQ(longest_first_lengths(10, 0, 4), std::make_pair(size_t(4), size_t(0)));  // a single sequence
  EXPECT_EQ(longest_first_lengths(3, 0, 4), std::make_pair(size_t(3), size_t(0)));
  EXPECT_EQ(longest_first_lengths(5, 9, 0), std::make_pair(size_t(0), size_t(0)));
  EXPECT_EQ(longest_first_lengths(1, 100, 8), std::make_pair(size_t(1), size_t(7)));
  EXPECT_EQ(longest_first_lengths(100, 100, 9), std::make_pair(size_t(4), size_t(5)));  // the second gets the odd one
  EXPECT_EQ(longest_first_lengths(100, 99, 9), std::make_pair(size_t(5), size_t(4)));   // else the longer one
  // Whatever the lengths, the kept ones fit the budget and never exceed what there is.
  for (size_t a = 0; a < 20; ++a) {
    for (size_t b = 0; b < 20; ++b) {
      for (size_t max = 0; max < 25; ++max) {
        const auto [ka, kb] = longest_first_lengths(a, b, max);
        ASSERT_LE(ka, a);
        ASSERT_LE(kb, b);
        ASSERT_EQ(ka + kb, std::min(a + b, max)) << a << " " << b << " " << max;
      }
    }
  }
}

TEST(EncodeExample, PairIsCutThenFramed) {
  const Tokenizer tok = tiny();
  EncodedExample out;
  out.ids = {99, 99};  // cleared first
  // 4 + 8 tokens into 7 - 3 specials = 4: both are cut to 2.
  encode_example(tok, repeat("a", 4), repeat("b", 8), true, 7, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 5, 5, 3, 6, 6, 3}));
  EXPECT_EQ(out.type_ids, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(out.truncated);
  encode_example(tok, "a b", "c d", true, 7, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 5, 6, 3, 7, 8, 3}));
  EXPECT_FALSE(out.truncated);
}

TEST(EncodeExample, FollowsTheLengthTableThroughTheTokenizer) {
  // HF's table again, now on text: max_len 10 leaves 7 tokens after [CLS] [SEP] [SEP].
  const Tokenizer tok = tiny();
  const size_t cases[][4] = {{0, 8, 0, 7}, {2, 8, 2, 5}, {4, 4, 3, 4}, {8, 2, 5, 2}, {8, 4, 4, 3}, {8, 8, 3, 4}};
  for (const auto& c : cases) {
    EncodedExample out;
    encode_example(tok, repeat("a", c[0]), repeat("b", c[1]), true, 10, out);
    const auto count = [&](uint32_t id) { return size_t(std::count(out.ids.begin(), out.ids.end(), id)); };
    EXPECT_EQ(count(5), c[2]) << c[0] << "," << c[1];
    EXPECT_EQ(count(6), c[3]) << c[0] << "," << c[1];
    EXPECT_EQ(out.ids.size(), 3 + c[2] + c[3]);
    EXPECT_EQ(out.type_ids.size(), out.ids.size());
  }
}

TEST(EncodeExample, SingleAndTheSmallestBudgets) {
  const Tokenizer tok = tiny();
  EncodedExample out;
  encode_example(tok, "a b c d", "ignored without a pair", false, 4, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 5, 6, 3}));
  EXPECT_EQ(out.type_ids, (std::vector<uint32_t>{0, 0, 0, 0}));
  EXPECT_TRUE(out.truncated);
  encode_example(tok, "a b c d", "", false, 6, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 5, 6, 7, 8, 3}));
  EXPECT_FALSE(out.truncated);
  // Exactly the special tokens: nothing of the text is left.
  encode_example(tok, "a", "b", true, 3, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 3, 3}));
  EXPECT_TRUE(out.truncated);
  EXPECT_THROW(encode_example(tok, "a", "b", true, 2, out), BadInput);
  EXPECT_THROW(encode_example(tok, "a", "", false, 1, out), BadInput);
  encode_example(tok, "", "", true, 3, out);  // empty texts are not truncated
  EXPECT_FALSE(out.truncated);
}

TEST(EncodeWithLimit, StopsAfterTheWordThatReachesTheLimit) {
  const Tokenizer tok = tiny();
  auto limited = [&](const std::string& text, size_t max_tokens) {
    std::vector<uint32_t> ids = {99};  // appends
    tok.encode_with_limit(text, ids, max_tokens);
    return std::vector<uint32_t>(ids.begin() + 1, ids.end());
  };
  // Words of two tokens: the limit 3 is reached inside the second word, which is kept whole.
  EXPECT_EQ(limited("as as as as", 3), (std::vector<uint32_t>{5, 9, 5, 9}));
  EXPECT_EQ(limited("as as as as", 4), (std::vector<uint32_t>{5, 9, 5, 9}));
  EXPECT_EQ(limited("as as as as", 0), (std::vector<uint32_t>{5, 9}));
  EXPECT_EQ(limited("as as", 100), (std::vector<uint32_t>{5, 9, 5, 9}));
  // Added tokens count but do not stop it; the next word does.
  EXPECT_EQ(limited("[MASK][MASK] [MASK] a b [MASK]", 2), (std::vector<uint32_t>{4, 4, 4, 5}));
  // Always a prefix of the full encoding, at least min(limit, length) long.
  const std::string text = "a as [MASK] b cs d ds as [SEP] c";
  std::vector<uint32_t> full;
  tok.encode(text, full, false);
  for (size_t limit = 0; limit <= full.size() + 1; ++limit) {
    const auto ids = limited(text, limit);
    ASSERT_GE(ids.size(), std::min(limit, full.size())) << limit;
    EXPECT_TRUE(std::equal(ids.begin(), ids.end(), full.begin())) << limit;
  }
}

TEST(EncodeExample, TheLongerWholeSequenceGetsTheOddToken) {
  // Both sides longer than max_len 8 (budget 5, odd). tokenizers 0.23.3 (the pinned peer) encodes
  // both in full and longest_first sees the whole lengths: 20 'a' and 9 'b' keep a 3, b 2 (0.23.2's
  // early exit had stopped a at 8 ids and given a 2, b 3).
  const Tokenizer tok = tiny();
  EncodedExample out;
  const auto count = [&](uint32_t id) { return size_t(std::count(out.ids.begin(), out.ids.end(), id)); };
  encode_example(tok, repeat("a", 20), repeat("b", 9), true, 8, out);
  EXPECT_EQ(count(5), 3u);
  EXPECT_EQ(count(6), 2u);
  // 10 "as" words are 20 ids, longer than b's 10: a gets the odd token.
  encode_example(tok, repeat("as", 10), repeat("b", 10), true, 8, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 5, 9, 5, 3, 6, 6, 3}));
  // "a" then 10 "as" words: 21 ids, the longer too.
  encode_example(tok, "a " + repeat("as", 10), repeat("b", 10), true, 8, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{2, 5, 5, 9, 3, 6, 6, 3}));
  EXPECT_TRUE(out.truncated);
}

TEST(PostProcess, MatchesEncodeAndEncodePair) {
  const Tokenizer tok = tiny();
  EXPECT_EQ(tok.num_special_tokens_to_add(false), 2u);
  EXPECT_EQ(tok.num_special_tokens_to_add(true), 3u);
  const std::string a = "a [MASK] b c", b = "d d a";
  std::vector<uint32_t> raw_a, raw_b, ids, types, want, want_types;
  tok.encode(a, raw_a, false);
  tok.encode(b, raw_b, false);
  tok.post_process(raw_a, nullptr, ids, &types);
  tok.encode(a, want);
  EXPECT_EQ(ids, want);
  EXPECT_EQ(types, std::vector<uint32_t>(want.size(), 0));
  ids.clear();
  types.clear();
  want.clear();
  tok.post_process(raw_a, &raw_b, ids, &types);
  tok.encode_pair(a, b, want, &want_types);
  EXPECT_EQ(ids, want);
  EXPECT_EQ(types, want_types);
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 5, 4, 6, 7, 3, 8, 8, 5, 3}));
}

TEST(PostProcess, WithoutAPostProcessorConcatenates) {
  Tokenizer::Parts parts = tiny().parts();
  parts.post_processor.reset();
  const Tokenizer plain(std::move(parts));
  EXPECT_EQ(plain.num_special_tokens_to_add(true), 0u);
  std::vector<uint32_t> ids = {7}, types = {0};  // post_process appends
  plain.post_process({5, 6}, nullptr, ids, &types);
  EXPECT_EQ(ids, (std::vector<uint32_t>{7, 5, 6}));
  const std::vector<uint32_t> second = {8};
  plain.post_process({5}, &second, ids, &types);
  EXPECT_EQ(ids, (std::vector<uint32_t>{7, 5, 6, 5, 8}));
  EXPECT_EQ(types, (std::vector<uint32_t>{0, 0, 0, 0, 1}));
  // encode_example then keeps the whole budget for the text.
  EncodedExample out;
  encode_example(plain, "a b c", "d", true, 3, out);
  EXPECT_EQ(out.ids, (std::vector<uint32_t>{5, 6, 8}));
  EXPECT_EQ(out.type_ids, (std::vector<uint32_t>{0, 0, 1}));
  EXPECT_TRUE(out.truncated);
}

}  // namespace
}  // namespace bertpt::classify
