// BertPreTokenizer (docs/hf-compat.md): whitespace removed, punctuation isolated.
#include "tokenizer/pre_tokenizers/bert.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bertpt::tokenizer {
namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string_view> words;
  bert_pre_tokenize(s, words);
  return {words.begin(), words.end()};
}

using V = std::vector<std::string>;

TEST(PreTokenizer, SplitsOnWhitespaceAndDropsIt) {
  EXPECT_EQ(split("hello  world\t\n x"), (V{"hello", "world", "x"}));
  EXPECT_EQ(split("   "), V{});
  EXPECT_EQ(split(""), V{});
  EXPECT_EQ(split("a\xC2\xA0"
                  "b\xE3\x80\x80"
                  "c"),
            (V{"a", "b", "c"}));  // U+00A0, U+3000
  EXPECT_EQ(split("a\xC2\x85"
                  "b"),
            (V{"a", "b"}));  // U+0085 is White_Space
  EXPECT_EQ(split("a\xE2\x80\x8B"
                  "b"),
            (V{"a\xE2\x80\x8B"
               "b"}));  // U+200B is not
}

TEST(PreTokenizer, IsolatesEveryPunctuationChar) {
  EXPECT_EQ(split("don't!"), (V{"don", "'", "t", "!"}));
  EXPECT_EQ(split("a...b"), (V{"a", ".", ".", ".", "b"}));
  EXPECT_EQ(split("$5+3=8^2`~|"), (V{"$", "5", "+", "3", "=", "8", "^", "2", "`", "~", "|"}));
  EXPECT_EQ(split("\xC2\xBF"
                  "Qu\xC3\xA9?"),
            (V{"\xC2\xBF", "Qu\xC3\xA9", "?"}));  // ¿ (Po)
  EXPECT_EQ(split("a\xE2\x80\x94"
                  "b"),
            (V{"a", "\xE2\x80\x94", "b"}));  // — (Pd)
  EXPECT_EQ(split("\xE3\x80\x8C"
                  "x\xE3\x80\x8D"),
            (V{"\xE3\x80\x8C", "x", "\xE3\x80\x8D"}));
}

TEST(PreTokenizer, SymbolsStayInsideWords) {
  EXPECT_EQ(split("5\xE2\x82\xAC"), (V{"5\xE2\x82\xAC"}));  // €
  EXPECT_EQ(split("\xC2\xA9"
                  "2024"),
            (V{"\xC2\xA9"
               "2024"}));                                             // ©
  EXPECT_EQ(split("hi\xF0\x9F\x98\x80"), (V{"hi\xF0\x9F\x98\x80"}));  // emoji
  EXPECT_EQ(split("10\xC2\xB0"
                  "C"),
            (V{"10\xC2\xB0"
               "C"}));  // °
}

TEST(PreTokenizer, PunctuationIsUnicode8) {
  // U+166D was Po in Unicode 8.0 (So since 12.0): isolated.
  EXPECT_EQ(split("a\xE1\x99\xAD"
                  "b"),
            (V{"a", "\xE1\x99\xAD", "b"}));
  // U+2E4F (Po, Unicode 11) is unassigned for HF: part of the word.
  EXPECT_EQ(split("a\xE2\xB9\x8F"
                  "b"),
            (V{"a\xE2\xB9\x8F"
               "b"}));
}

TEST(PreTokenizer, AppendsViewsIntoInput) {
  const std::string s = "x y";
  std::vector<std::string_view> words{"keep"};
  bert_pre_tokenize(s, words);
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[1].data(), s.data());
}

}  // namespace
}  // namespace bertpt::tokenizer
