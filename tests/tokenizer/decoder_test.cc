// HF's WordPiece decoder with clean-up (docs/hf-compat.md), rule by rule.
#include "tokenizer/decoders/wordpiece.h"

#include <gtest/gtest.h>

namespace bertpt::tokenizer {
namespace {

std::string dec(std::vector<std::string_view> tokens, bool cleanup = true) {
  std::string out;
  wordpiece_decode(tokens, WordPieceDecoderOptions{"##", cleanup}, out);
  return out;
}

TEST(Decoder, JoinsPiecesAndWords) {
  EXPECT_EQ(dec({"un", "##aff", "##able", "day"}), "unaffable day");
  EXPECT_EQ(dec({"##a", "b"}), "##a b");  // the first token keeps its prefix
  EXPECT_EQ(dec({}), "");
  EXPECT_EQ(dec({"a", "##"}), "a");  // "##" alone: prefix removed, nothing left
}

TEST(Decoder, CleanupRules) {
  EXPECT_EQ(dec({"hi", ".", "ok", "?", "yes", "!", "a", ",", "b"}), "hi. ok? yes! a, b");
  EXPECT_EQ(dec({"don", "'", "t"}), "don ' t");  // " ' " never occurs within one token
  EXPECT_EQ(dec({"isn", "n't"}), "isnn't");
  EXPECT_EQ(dec({"i", "'m"}), "i'm");
  EXPECT_EQ(dec({"it", "'s"}), "it's");
  EXPECT_EQ(dec({"we", "'ve"}), "we've");
  EXPECT_EQ(dec({"they", "'re"}), "they're");
  EXPECT_EQ(dec({"hi", "."}, false), "hi .");
}

TEST(Decoder, CleanupAppliesWithinOneToken) {
  EXPECT_EQ(cleanup_decoded("a ' b"), "a'b");
  EXPECT_EQ(cleanup_decoded("i do not"), "i don't");
  EXPECT_EQ(cleanup_decoded(" do not ."), " don't.");
  EXPECT_EQ(cleanup_decoded("x"), "x");
}

TEST(Decoder, TransformersCleanUpSeesAcrossTokens) {
  // What Python's tokenizer.decode() adds on top of the decoder: "don ' t" (the decoder's output for
  // don / ' / t) becomes "don't"; quotes lose both spaces, as transformers' rule " ' " -> "'" does.
  EXPECT_EQ(clean_up_tokenization(dec({"i", "don", "'", "t", "know", "."})), "i don't know.");
  EXPECT_EQ(clean_up_tokenization(dec({"he", "said", "'", "hello", "'", "to", "me"})), "he said'hello'to me");
  EXPECT_EQ(clean_up_tokenization("a . b ? c ! d , e"), "a. b? c! d, e");
  EXPECT_EQ(clean_up_tokenization("i do not"), "i do not");  // the decoder's " do not" rule is not one of these
  EXPECT_EQ(clean_up_tokenization(" n't 'm 's 've 're"), "n't'm's've're");
  EXPECT_EQ(clean_up_tokenization(""), "");
}

}  // namespace
}  // namespace bertpt::tokenizer
