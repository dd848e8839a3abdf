// The whole pipeline: added tokens, normalizer, pre-tokenizer, WordPiece, post-processor, decode.
#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include <thread>

#include "common/error.h"

namespace bertpt::tokenizer {
namespace {

const std::vector<std::string> kSpecials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

// 0..4 specials, 5 hello, 6 world, 7 !, 8 un, 9 ##aff, 10 ##able, 11 ., 12 ', 13 s, 14 ##s, 15 cafe
Tokenizer small(bool lowercase = true) {
  std::vector<std::string> v = kSpecials;
  for (const char* t : {"hello", "world", "!", "un", "##aff", "##able", ".", "'", "s", "##s", "cafe"}) {
    v.push_back(t);
  }
  NormalizerOptions o;
  o.lowercase = lowercase;
  return Tokenizer::bert(v, o, kSpecials);
}

using Ids = std::vector<uint32_t>;

Ids enc(const Tokenizer& t, std::string_view s, bool special = true) {
  Ids ids;
  t.encode(s, ids, special);
  return ids;
}

TEST(Tokenizer, SingleSequenceTemplate) {
  const Tokenizer t = small();
  EXPECT_EQ(enc(t, "Hello, WORLD!"), (Ids{2, 5, 1, 6, 7, 3}));
  EXPECT_EQ(enc(t, "Hello, WORLD!", false), (Ids{5, 1, 6, 7}));
  EXPECT_EQ(enc(t, ""), (Ids{2, 3}));
  EXPECT_EQ(enc(t, "unaffable Café"), (Ids{2, 8, 9, 10, 15, 3}));
}

TEST(Tokenizer, CasedVocabularyMissesUppercase) {
  const Tokenizer t = small(false);
  EXPECT_EQ(enc(t, "Hello hello", false), (Ids{1, 5}));
  EXPECT_EQ(enc(t, "café", false), (Ids{1}));  // accents kept: not in the vocabulary
}

TEST(Tokenizer, PairTemplateWithTypeIds) {
  const Tokenizer t = small();
  Ids ids, types;
  t.encode_pair("hello", "world !", ids, &types);
  EXPECT_EQ(ids, (Ids{2, 5, 3, 6, 7, 3}));
  EXPECT_EQ(types, (Ids{0, 0, 0, 1, 1, 1}));
  ids.clear();
  types.clear();
  t.encode_pair("hello", "world", ids, &types, false);
  EXPECT_EQ(ids, (Ids{5, 6}));
  EXPECT_EQ(types, (Ids{0, 1}));
}

TEST(Tokenizer, SpecialTokensInTheTextAreMatchedVerbatim) {
  const Tokenizer t = small();
  EXPECT_EQ(enc(t, "hello [MASK] world", false), (Ids{5, 4, 6}));
  EXPECT_EQ(enc(t, "hello[MASK]world", false), (Ids{5, 4, 6}));
  EXPECT_EQ(enc(t, "[mask]", false), (Ids{1, 1, 1}));  // raw match only: lowercase is not [MASK]
  EXPECT_EQ(enc(t, "[CLS][SEP]", false), (Ids{2, 3}));
  EXPECT_EQ(enc(t, "[MASK", false), (Ids{1, 1}));
}

TEST(Tokenizer, Decode) {
  const Tokenizer t = small();
  EXPECT_EQ(t.decode({2, 8, 9, 10, 6, 7, 3}, false), "[CLS] unaffable world! [SEP]");
  EXPECT_EQ(t.decode({2, 8, 9, 10, 6, 7, 3}, true), "unaffable world!");
  // "'" and "s" are separate tokens: " '" and " s" match no clean-up rule (HF does the same).
  EXPECT_EQ(t.decode({5, 12, 13, 11}, true), "hello ' s.");
  EXPECT_EQ(t.decode({5, 999, 6}, true), "hello world");  // unknown ids are skipped
}

TEST(Tokenizer, Lookups) {
  const Tokenizer t = small();
  EXPECT_EQ(t.vocab_size(), 16u);
  EXPECT_EQ(t.id_to_token(9), "##aff");
  EXPECT_EQ(t.token_to_id("[SEP]"), 3u);
  const SpecialIds s = t.special_ids();
  EXPECT_EQ(s.pad, 0);
  EXPECT_EQ(s.unk, 1);
  EXPECT_EQ(s.cls, 2);
  EXPECT_EQ(s.sep, 3);
  EXPECT_EQ(s.mask, 4);
  EXPECT_TRUE(t.is_special(4));
  EXPECT_FALSE(t.is_special(5));
}

TEST(Tokenizer, BertNeedsClsAndSep) {
  EXPECT_THROW(Tokenizer::bert({"[UNK]", "a"}, {}, {"[UNK]"}), BadInput);
  EXPECT_THROW(Tokenizer::bert({"[UNK]", "[CLS]", "[SEP]"}, {}, {"[MASK]"}), BadInput);
}

TEST(Tokenizer, SharedAcrossThreads) {
  const Tokenizer t = small();
  const Ids expected = enc(t, "hello world! unaffable [MASK] café");
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      Ids ids;
      int good = 0;
      for (int i = 0; i < 2000; ++i) {
        ids.clear();
        t.encode("hello world! unaffable [MASK] café", ids, true);
        good += ids == expected;
      }
      ok[k] = good;
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(ok[k], 2000);
}

}  // namespace
}  // namespace bertpt::tokenizer
