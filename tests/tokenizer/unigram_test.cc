// The Unigram model (models/unigram.h): Viterbi with HF's tie-breaking and unknown-character rules,
// fused unknowns, byte fallback, and the reading of tokenizer.json. Expected ids are what Hugging
// Face tokenizers 0.23.3 gives (Unigram(vocab, unk_id, byte_fallback).model.tokenize(word)).
#include "tokenizer/models/unigram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"

namespace bertpt::tokenizer {
namespace {

using Pieces = std::vector<std::pair<std::string, double>>;

std::vector<uint32_t> ids(const Unigram& model, std::string_view word) {
  std::vector<uint32_t> out;
  model.encode_word(word, out);
  return out;
}

Pieces with_bytes(Pieces pieces) {
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    pieces.emplace_back(name, -5.0);
  }
  return pieces;
}

// The message of the BadInput that `f` throws ("" when it throws none).
template <class F>
std::string bad_input(F&& f) {
  try {
    f();
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

TEST(Unigram, BestPathOfHfDocumentation) {
  const Unigram m(
      {{"<unk>", 0}, {"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"cd", 1}, {"ab", 2}, {"abc", 5}, {"abcd", 10}}, 0, false);
  EXPECT_EQ(ids(m, "abcdacdxx"), (std::vector<uint32_t>{8, 1, 5, 0}));
  EXPECT_EQ(m.encode_pieces("abcdacdxx"), (std::vector<std::string>{"abcd", "a", "cd", "xx"}));
}

TEST(Unigram, EqualScoresKeepThePathFoundFirst) {
  // "ab" (-1) and "a" + "b" (-1) tie: the piece starting earliest reaches the end first and stays.
  const Unigram m({{"<unk>", 0}, {"ab", -1}, {"a", -0.5}, {"b", -0.5}, {"bc", -1}, {"c", -0.5}}, 0, false);
  EXPECT_EQ(ids(m, "ab"), (std::vector<uint32_t>{1}));
  EXPECT_EQ(ids(m, "abc"), (std::vector<uint32_t>{2, 4}));
  EXPECT_EQ(ids(m, "cab"), (std::vector<uint32_t>{5, 1}));
  const Unigram three({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"c", -1}, {"abc", -3}, {"bc", -2}, {"ab", -2}}, 0, false);
  EXPECT_EQ(ids(three, "abc"), (std::vector<uint32_t>{4}));
}

TEST(Unigram, UnknownCharacterScoresTenBelowTheLowestPiece) {
  // min_score -5: an unknown "x" scores -15, so "x" + "b" beats "xb" (-5) only when b > 10.
  EXPECT_EQ(ids(Unigram({{"<unk>", 0}, {"b", 11}, {"xb", -5}}, 0, false), "xb"), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(ids(Unigram({{"<unk>", 0}, {"b", 9}, {"xb", -5}}, 0, false), "xb"), (std::vector<uint32_t>{2}));
  EXPECT_EQ(Unigram({{"<unk>", 0}, {"b", 9}, {"xb", -5}}, 0, false).min_score(), -5);
}

TEST(Unigram, ConsecutiveUnknownsAreFused) {
  const Unigram m({{"<unk>", 0}, {"a", -1}}, 0, false);
  EXPECT_EQ(ids(m, "xyz"), (std::vector<uint32_t>{0}));
  EXPECT_EQ(ids(m, "axya"), (std::vector<uint32_t>{1, 0, 1}));
  EXPECT_EQ(m.encode_pieces("\xE6\x97\xA5\xE6\x9C\xAC"
                            "a"),
            (std::vector<std::string>{"\xE6\x97\xA5\xE6\x9C\xAC", "a"}));
}

TEST(Unigram, TheUnknownPieceInTheTextFusesWithUnknownCharacters) {
  // "<unk>" matched as a piece has the unknown id, so HF fuses it with unknown neighbours; the run is
  // then looked up whole, and "é<unk>" is not a piece.
  const Unigram m({{"a", -1}, {"<unk>", 0}, {"<", -2}, {">", -2}, {"u", -2}, {"n", -2}, {"k", -2}}, 1, false);
  EXPECT_EQ(ids(m, "<unk>"), (std::vector<uint32_t>{1}));
  EXPECT_EQ(ids(m, "\xC3\xA9<unk>"), (std::vector<uint32_t>{1}));
  EXPECT_EQ(m.encode_pieces("a<unk>\xC3\xA9"), (std::vector<std::string>{"a", "<unk>\xC3\xA9"}));
}

TEST(Unigram, ByteFallbackSpellsUnknownRunsInBytes) {
  const Unigram m(with_bytes({{"<unk>", 0}, {"a", -1}}), 0, true);
  // <0xNN> has id 2 + NN.
  EXPECT_EQ(ids(m,
                "a\xC3\xA9\xE6\x97\xA5"
                "a"),
            (std::vector<uint32_t>{1, 197, 171, 232, 153, 167, 1}));
  EXPECT_EQ(ids(m, "\xC3\xA9<unk>"), (std::vector<uint32_t>{197, 171, 62, 119, 112, 109, 64}));
}

TEST(Unigram, ByteFallbackNeedsEveryBytePiece) {
  const Unigram m({{"<unk>", 0}, {"a", -1}, {"<0xC3>", -5}}, 0, true);
  EXPECT_EQ(ids(m,
                "a\xC3\xA9"
                "a"),
            (std::vector<uint32_t>{1, 0, 1}));
}

TEST(Unigram, WithoutUnkIdAnUncoveredCharacterFailsOnlyWhenItWouldEnterThePath) {
  const Unigram m({{"a", -1}, {"ab", -0.5}, {"b", -1}}, std::nullopt, false);
  EXPECT_EQ(ids(m, "ab"), (std::vector<uint32_t>{1}));
  EXPECT_NE(bad_input([&] { ids(m, "abx"); }).find("has no unk_id"), std::string::npos);
  // "é" is in no one-character piece, but the path through "aé" is already better.
  const Unigram covered({{"a", -1}, {"a\xC3\xA9", -1}}, std::nullopt, false);
  EXPECT_EQ(ids(covered, "a\xC3\xA9"), (std::vector<uint32_t>{1}));
  EXPECT_NE(bad_input([&] { ids(covered, "\xC3\xA9"); }), "");
  EXPECT_NE(bad_input([&] { ids(Unigram(with_bytes({{"a", -1}}), std::nullopt, true), "a\xC3\xA9"); }), "");
}

TEST(Unigram, AnEmptyPieceIsNeverMatched) {
  const Unigram m({{"<unk>", 0}, {"", 5}, {"a", -1}}, 0, false);
  EXPECT_EQ(ids(m, "a"), (std::vector<uint32_t>{2}));
  EXPECT_EQ(ids(m, "b"), (std::vector<uint32_t>{0}));
  EXPECT_EQ(m.token_to_id(""), 1u);
}

TEST(Unigram, Vocabulary) {
  const Unigram m({{"<unk>", 0}, {"\xE2\x96\x81the", -2.5}, {"a", -1}}, 0, false);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.id_limit(), 3u);
  EXPECT_EQ(m.token_to_id("\xE2\x96\x81the"), 1u);
  EXPECT_EQ(m.token_to_id("\xE2\x96\x81th"), std::nullopt);
  EXPECT_EQ(m.id_to_token(2), "a");
  EXPECT_EQ(m.id_to_token(3), "");
  EXPECT_TRUE(m.has_id(2));
  EXPECT_FALSE(m.has_id(3));
  EXPECT_EQ(m.unk_id(), 0u);
  EXPECT_EQ(m.unk_token(), "<unk>");
  EXPECT_EQ(m.type(), "Unigram");
  EXPECT_EQ(Unigram({{"a", -1}}, std::nullopt, false).unk_token(), "");
}

TEST(Unigram, ReadsAndWritesTokenizerJson) {
  const nlohmann::json j = nlohmann::json::parse(
      R"({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a", -1.5], ["b", -2.0]], "byte_fallback": true})");
  const auto m = Unigram::from_json(JsonFields(j, "tokenizer.json", "model"));
  EXPECT_TRUE(m->byte_fallback());
  EXPECT_EQ(m->score(1), -1.5);
  EXPECT_EQ(m->to_json().dump(),
            R"({"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["a",-1.5],["b",-2.0]],"byte_fallback":true})");
  const nlohmann::json no_unk = nlohmann::json::parse(R"({"type": "Unigram", "unk_id": null, "vocab": [["a", -1]]})");
  const auto n = Unigram::from_json(JsonFields(no_unk, "tokenizer.json", "model"));
  EXPECT_EQ(n->unk_id(), std::nullopt);
  EXPECT_FALSE(n->byte_fallback());
  EXPECT_EQ(n->to_json().dump(), R"({"type":"Unigram","unk_id":null,"vocab":[["a",-1.0]],"byte_fallback":false})");
}

TEST(Unigram, BadVocabulariesNameTheField) {
  auto read = [](const std::string& text) {
    return bad_input([&] {
      const nlohmann::json j = nlohmann::json::parse(text);
      Unigram::from_json(JsonFields(j, "tokenizer.json", "model"));
    });
  };
  EXPECT_EQ(read(R"({"vocab": [["a", -1], ["b", "x"]]})"),
            "tokenizer.json: field \"model.vocab[1][1]\" is a string, expected a number");
  EXPECT_EQ(read(R"({"vocab": [["a", -1], ["b"]]})"),
            "tokenizer.json: field \"model.vocab[1]\" has 1 elements, expected [piece, score]");
  EXPECT_EQ(read(R"({"vocab": [["a", -1], [2, -1]]})"),
            "tokenizer.json: field \"model.vocab[1][0]\" is an integer, expected a string");
  EXPECT_EQ(read(R"({"vocab": [["a", -1], ["b", -1], ["a", -2]]})"),
            "tokenizer.json: field \"model.vocab[2][0]\" is 'a', a duplicate of piece 0");
  EXPECT_EQ(read(R"({"unk_id": 3, "vocab": [["a", -1], ["b", -1]]})"),
            "tokenizer.json: field \"model.unk_id\" is 3, past the vocabulary of 2 pieces");
  EXPECT_EQ(read(R"({"unk_id": -1, "vocab": [["a", -1]]})"),
            "tokenizer.json: field \"model.unk_id\" is -1, expected an unsigned integer");
  EXPECT_EQ(read(R"({"unk_id": 0})"), "tokenizer.json: field \"model.vocab\" is missing");
  EXPECT_EQ(bad_input([] {
              Unigram({{"a", -1}, {"b", NAN}}, 0, false);
            }),
            "Unigram: field \"vocab[1][1]\" is not a finite number");
  EXPECT_EQ(bad_input([] {
              Unigram({{"a", INFINITY}}, 0, false);
            }),
            "Unigram: field \"vocab[0][1]\" is not a finite number");
}

TEST(Unigram, LongWordsAndEveryCharacterWidth) {
  const Unigram m({{"<unk>", 0}, {"ab", -1}, {"\xC3\xA9", -2}, {"\xE6\x97\xA5", -2}, {"\xF0\x9F\x98\x80", -2}}, 0,
                  false);
  std::string word;
  for (int i = 0; i < 20000; ++i) word += "ab\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80";
  const std::vector<uint32_t> out = ids(m, word);
  ASSERT_EQ(out.size(), 80000u);
  EXPECT_EQ((std::vector<uint32_t>(out.begin(), out.begin() + 4)), (std::vector<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(ids(m, "ab\xF0\x9F\x98\x81x"), (std::vector<uint32_t>{1, 0}));
}

}  // namespace
}  // namespace bertpt::tokenizer
