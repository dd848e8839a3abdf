// WordPiece model (docs/hf-compat.md): greedy longest-match-first with "##", whole word
// -> [UNK] on failure or when longer than max_input_chars_per_word characters.
#include "tokenizer/models/wordpiece.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace bertpt::tokenizer {
namespace {

WordPiece make(std::vector<std::string> tokens, WordPieceOptions o = {}) {
  return WordPiece::from_tokens(std::move(tokens), o, "test-vocab");
}

std::vector<uint32_t> enc(const WordPiece& wp, std::string_view word) {
  std::vector<uint32_t> ids;
  wp.encode_word(word, ids);
  return ids;
}

using Ids = std::vector<uint32_t>;

// 0 [UNK], 1 un, 2 ##aff, 3 ##able, 4 una, 5 ##ffable, 6 a, 7 ##a, 8 ##b, 9 é, 10 ##é
const std::vector<std::string> kVocab = {"[UNK]", "un",  "##aff", "##able",   "una",       "##ffable",
                                         "a",     "##a", "##b",   "\xC3\xA9", "##\xC3\xA9"};

TEST(WordPiece, GreedyLongestMatchFirst) {
  const WordPiece wp = make(kVocab);
  EXPECT_EQ(enc(wp, "unaffable"), (Ids{4, 5}));  // "una" wins over "un", then "##ffable"
  EXPECT_EQ(enc(wp, "una"), (Ids{4}));
  EXPECT_EQ(enc(wp, "aab"), (Ids{6, 7, 8}));
}

TEST(WordPiece, WholeWordBecomesUnkWhenAPositionFails) {
  const WordPiece wp = make(kVocab);
  EXPECT_EQ(enc(wp, "unx"), (Ids{0}));
  EXPECT_EQ(enc(wp, "x"), (Ids{0}));
  EXPECT_EQ(enc(wp, "ab"), (Ids{6, 8}));
  EXPECT_EQ(enc(wp, "ba"), (Ids{0}));  // "b" is only a continuation
}

TEST(WordPiece, ContinuationNeedsThePrefix) {
  const WordPiece wp = make({"[UNK]", "a", "b"});
  EXPECT_EQ(enc(wp, "ab"), (Ids{0}));
}

TEST(WordPiece, MultibyteCharsAreNeverSplit) {
  const WordPiece wp = make(kVocab);
  EXPECT_EQ(enc(wp, "\xC3\xA9\xC3\xA9"), (Ids{9, 10}));
  EXPECT_EQ(enc(wp, "a\xC3\xA9"), (Ids{6, 10}));
}

TEST(WordPiece, MaxInputCharsCountsCharactersNotBytes) {
  WordPieceOptions o;
  o.max_input_chars_per_word = 3;
  const WordPiece wp = make(kVocab, o);
  EXPECT_EQ(enc(wp, "aaa"), (Ids{6, 7, 7}));
  EXPECT_EQ(enc(wp, "aaaa"), (Ids{0}));
  EXPECT_EQ(enc(wp, "\xC3\xA9\xC3\xA9\xC3\xA9"), (Ids{9, 10, 10}));  // 6 bytes, 3 chars
  EXPECT_EQ(enc(wp, "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"), (Ids{0}));
}

TEST(WordPiece, DefaultLimitIs100Chars) {
  const WordPiece wp = make(kVocab);
  EXPECT_EQ(enc(wp, std::string(100, 'a')).size(), 100u);
  EXPECT_EQ(enc(wp, std::string(101, 'a')), (Ids{0}));
}

TEST(WordPiece, EmptyPrefixLooksUpWholeTokens) {
  WordPieceOptions o;
  o.continuing_subword_prefix = "";
  const WordPiece wp = make({"[UNK]", "ab", "c"}, o);
  EXPECT_EQ(enc(wp, "abc"), (Ids{1, 2}));
}

TEST(WordPiece, Lookups) {
  const WordPiece wp = make(kVocab);
  EXPECT_EQ(wp.size(), kVocab.size());
  EXPECT_EQ(wp.unk_id(), 0u);
  EXPECT_EQ(wp.token_to_id("##able"), 3u);
  EXPECT_FALSE(wp.token_to_id("able").has_value());
  EXPECT_EQ(wp.id_to_token(4), "una");
  EXPECT_EQ(wp.id_to_token(99), "");
}

TEST(WordPiece, MapIdsAreDense) {
  const WordPiece wp = WordPiece::from_map({{"[UNK]", 1}, {"a", 0}}, {}, "m");
  EXPECT_EQ(wp.size(), 2u);
  EXPECT_EQ(wp.id_limit(), 2u);
  EXPECT_EQ(wp.unk_id(), 1u);
  try {
    WordPiece::from_map({{"[UNK]", 5}, {"a", 0}}, {}, "m");
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("m: token '[UNK]' has id 5, but the vocabulary has 2 tokens"),
              std::string::npos)
        << e.what();
  }
}

TEST(WordPiece, RejectsDuplicatesAndMissingUnk) {
  try {
    make({"[UNK]", "a", "a"});
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("test-vocab:3: duplicate token 'a'"), std::string::npos) << e.what();
  }
  try {
    make({"a"});
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("'[UNK]' is not in the vocabulary"), std::string::npos);
  }
  EXPECT_THROW(WordPiece::from_map({{"[UNK]", 1}, {"a", 1}}, {}, "m"), BadInput);
}

TEST(WordPiece, LargeVocabulary) {
  std::vector<std::string> v{"[UNK]"};
  for (int i = 0; i < 50000; ++i) v.push_back("t" + std::to_string(i));
  const WordPiece wp = make(v);
  for (int i = 0; i < 50000; i += 997) {
    EXPECT_EQ(wp.token_to_id("t" + std::to_string(i)), uint32_t(i + 1));
  }
}

}  // namespace
}  // namespace bertpt::tokenizer
