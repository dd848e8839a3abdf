// HF's WordPiece decoder with clean-up (SPEC-hf-compat.md section 4), rule by rule.
#include "tokenizer/decoder.h"

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
  EXPECT_EQ(dec({"a", "##"}), "a");       // "##" alone: prefix removed, nothing left
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

}  // namespace
}  // namespace bertpt::tokenizer
