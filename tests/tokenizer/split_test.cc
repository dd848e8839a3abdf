// The splitting pre-tokenizers (tokenizer/pre_tokenizers/{split,whitespace,punctuation,digits}.h).
// The behaviours follow HF's own documentation example ("the-final--countdown" split on '-'); the
// other expected pieces were computed by hand and confirmed once with tokenizers 0.23.3's
// pre_tokenize_str (empty-match and lookahead cases: the onig crate's find_iter).
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "tokenizer/pre_tokenizers/digits.h"
#include "tokenizer/pre_tokenizers/punctuation.h"
#include "tokenizer/pre_tokenizers/split.h"
#include "tokenizer/pre_tokenizers/whitespace.h"

namespace bertpt::tokenizer {
namespace {

using Strings = std::vector<std::string>;

Strings words_of(const PreTokenizer& pre, const std::string& text) {
  Words words;
  words.reset(text, true);
  pre.pre_tokenize(words);
  Strings out;
  for (size_t i = 0; i < words.size(); ++i) out.emplace_back(words[i]);
  return out;
}

TEST(Split, Behaviors) {
  const std::string text = "the-final--countdown";
  const auto split = [&](SplitBehavior b, bool invert) { return words_of(Split("-", false, b, invert), text); };
  EXPECT_EQ(split(SplitBehavior::kRemoved, false), (Strings{"the", "final", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kIsolated, false), (Strings{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithPrevious, false), (Strings{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithNext, false), (Strings{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split(SplitBehavior::kContiguous, false), (Strings{"the", "-", "final", "--", "countdown"}));
  // invert: the words are the matches.
  EXPECT_EQ(split(SplitBehavior::kRemoved, true), (Strings{"-", "-", "-"}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithPrevious, true), (Strings{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split(SplitBehavior::kMergedWithNext, true), (Strings{"the-", "final-", "-", "countdown"}));
}

TEST(Split, StringPatternsAreLiterals) {
  EXPECT_EQ(words_of(Split("a.b", false, SplitBehavior::kIsolated, false), "a.bxaxb"), (Strings{"a.b", "xaxb"}));
  EXPECT_EQ(words_of(Split("#&-~", false, SplitBehavior::kRemoved, false), "x#&-~y"), (Strings{"x", "y"}));
  EXPECT_EQ(OnigRegex::escape("a.b*(c)#&-~"), "a\\.b\\*\\(c\\)\\#\\&\\-\\~");
}

TEST(Split, RegexWithEmptyMatches) {
  // x* matches empty between characters: the onig crate skips an empty match right where the
  // previous one ended, so "xxaxb" is xx | a | x | b (and an empty match at the end).
  EXPECT_EQ(words_of(Split("x*", true, SplitBehavior::kMergedWithPrevious, false), "xxaxb"),
            (Strings{"xx", "ax", "b"}));
  // The empty lookahead match before b does not touch the previous match (x, which ended at 1): it
  // is kept, and cuts "ab".
  EXPECT_EQ(words_of(Split("x|(?=b)", true, SplitBehavior::kIsolated, false), "xab"), (Strings{"x", "a", "b"}));
  // The empty pattern matches everywhere: every character is a word.
  EXPECT_EQ(words_of(Split("", false, SplitBehavior::kRemoved, false), "héllo"), (Strings{"h", "é", "l", "l", "o"}));
}

TEST(Split, LetterAndNumberClassesAreHfs) {
  // U+105C0 (Todhri letter) and U+10D40 (Garay digit zero) are Unicode 16.0: HF's Oniguruma has them
  // in \p{L} and \p{N}, the system's 6.9.8 (Unicode 14.0) has not; the rewrite makes them match.
  EXPECT_EQ(words_of(Split("\\p{L}+", true, SplitBehavior::kIsolated, false), "ab\U000105C0c!"),
            (Strings{"ab\U000105C0c", "!"}));
  EXPECT_EQ(words_of(Split("[^\\p{L}\\p{N}]+", true, SplitBehavior::kRemoved, false), "a\U000105C0,\U00010D40"),
            (Strings{"a\U000105C0", "\U00010D40"}));
  EXPECT_EQ(with_hf_letter_and_number_classes("\\\\p{L}\\p{Lu}"), "\\\\p{L}\\p{Lu}");  // escaped, or not L
  EXPECT_EQ(with_hf_letter_and_number_classes("[\\p{N}]").substr(0, 14), "[\\x{30}-\\x{39}");
}

TEST(Split, SplitsEachIncomingWord) {
  Words words;
  const std::string text = "a-b c-d";
  words.reset(text, true);
  words.spans = {{0, 3, false, true}, {4, 7, false, false}};
  Split("-", false, SplitBehavior::kRemoved, false).pre_tokenize(words);
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[2], "c");
  EXPECT_TRUE(words.spans[0].at_origin);
  EXPECT_FALSE(words.spans[1].at_origin);
}

TEST(Split, Json) {
  const nlohmann::json j = nlohmann::json::parse(
      R"({"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "MergedWithNext", "invert": false})");
  const auto split = Split::from_json(JsonFields(j, "tokenizer.json", "pre_tokenizer"));
  EXPECT_EQ(words_of(*split, "a b  c"), (Strings{"a", " b", "  c"}));
  EXPECT_EQ(split->to_json().dump(),
            R"({"type":"Split","pattern":{"Regex":"\\s+"},"behavior":"MergedWithNext","invert":false})");
  const auto error = [](const std::string& text) {
    const nlohmann::json bad = nlohmann::json::parse(text);
    return testing::error_of([&] { Split::from_json(JsonFields(bad, "tokenizer.json", "pre_tokenizer")); });
  };
  EXPECT_EQ(error(R"({"type": "Split", "pattern": {"String": "x"}, "behavior": "Isolated"})"),
            "tokenizer.json: field \"pre_tokenizer.invert\" is missing");
  EXPECT_EQ(error(R"({"type": "Split", "pattern": {"String": "x"}, "behavior": "Apart", "invert": false})"),
            "tokenizer.json: field \"pre_tokenizer.behavior\" is 'Apart', not a split behavior");
  EXPECT_EQ(error(R"({"type": "Split", "pattern": {"Regex": "(a"}, "behavior": "Isolated", "invert": false})")
                .rfind("tokenizer.json: field \"pre_tokenizer.pattern.Regex\": the regular expression '(a' does not "
                       "compile",
                       0),
            0u);
}

TEST(Whitespace, WordsAndPunctuationRunsWithoutSpaces) {
  EXPECT_EQ(words_of(Whitespace(), "Hey man!  Good?é_x ¿¡"), (Strings{"Hey", "man", "!", "Good", "?", "é_x", "¿¡"}));
  EXPECT_EQ(words_of(Whitespace(), "   "), Strings{});
  EXPECT_EQ(Whitespace().to_json().dump(), R"({"type":"Whitespace"})");
}

TEST(WhitespaceSplit, SplitsOnWhiteSpace) {
  EXPECT_EQ(words_of(WhitespaceSplit(), " Hey\u00a0man!\u3000x "), (Strings{"Hey", "man!", "x"}));
  EXPECT_EQ(WhitespaceSplit().to_json().dump(), R"({"type":"WhitespaceSplit"})");
}

TEST(Punctuation, IsolatesPunctuation) {
  EXPECT_EQ(words_of(Punctuation(), "Hey friend!  How?!?"), (Strings{"Hey friend", "!", "  How", "?", "!", "?"}));
  EXPECT_EQ(words_of(Punctuation(SplitBehavior::kRemoved), "a,b¿c"), (Strings{"a", "b", "c"}));
  const nlohmann::json j = nlohmann::json::parse(R"({"type": "Punctuation"})");
  EXPECT_EQ(Punctuation::from_json(JsonFields(j, "tokenizer.json", "pre_tokenizer"))->to_json().dump(),
            R"({"type":"Punctuation","behavior":"Isolated"})");
}

TEST(Digits, IndividualOrRuns) {
  EXPECT_EQ(words_of(Digits(true), "Hey 123 friend!٣٤"), (Strings{"Hey ", "1", "2", "3", " friend!", "٣", "٤"}));
  EXPECT_EQ(words_of(Digits(false), "Hey 123 friend!٣٤ ²"), (Strings{"Hey ", "123", " friend!", "٣٤", " ", "²"}));
  EXPECT_EQ(Digits(true).to_json().dump(), R"({"type":"Digits","individual_digits":true})");
}

}  // namespace
}  // namespace bertpt::tokenizer
