// UnigramTrainer (tokenizer/unigram_trainer.h): small cases derived by hand from the header's rules
// (and checked against tokenizers 0.23.3's UnigramTrainer, whose own unit tests they follow), option
// handling, independence from thread counts, and training on a multilingual corpus against HF's
// trainer (tests/peer/unigram_trainer_peer.py): vocabulary overlap and tokens per held-out word.
#include "tokenizer/unigram_trainer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.h"
#include "peer.h"
#include "trainer_test_util.h"

namespace bertpt::tokenizer {
namespace {

using Pieces = std::vector<std::pair<std::string, double>>;

using testing::counts_of;

// The pieces' texts and scores, scores rounded to 1e-9 (HF's own runs differ in the last digits).
Pieces rounded(const TrainedUnigram& t) {
  Pieces out;
  for (const auto& [text, score] : t.pieces) out.emplace_back(text, std::round(score * 1e9) / 1e9);
  return out;
}

TEST(UnigramTrainer, DefaultsAreHuggingFaces) {
  const UnigramTrainerOptions o;
  EXPECT_EQ(o.vocab_size, 8000u);
  EXPECT_EQ(o.n_sub_iterations, 2u);
  EXPECT_EQ(o.shrinking_factor, 0.75);
  EXPECT_TRUE(o.special_tokens.empty());
  EXPECT_TRUE(o.initial_alphabet.empty());
  EXPECT_EQ(o.unk_token, "");
  EXPECT_EQ(o.max_piece_length, 16u);
  EXPECT_EQ(o.seed_size, 1'000'000u);
}

// "abab": seeds b, a (count 2 each; the larger code point first) and "ab" (2 occurrences x 2
// characters, followed by "a" and by the word's end). E step: of the paths ab|ab (1/4), ab|a|b and
// a|b|ab (1/32 each) and a|b|a|b (1/256), a and b are expected 2/9 times each: below 0.5, they go,
// and "ab" alone scores digamma(16/9) - digamma(16/9) = 0. The characters come back at the end, with
// the smallest score (0) + 0.0001 per character added before: a 0, b 0.0001; sorted by score, b first.
TEST(UnigramTrainer, RareCharactersLeaveAndComeBackAtTheEnd) {
  const TrainedUnigram t = UnigramTrainer(UnigramTrainerOptions{}).train(counts_of({{"abab", 1}}));
  EXPECT_EQ(rounded(t), (Pieces{{"b", 0.0001}, {"a", 0}, {"ab", 0}}));  // HF: the same
  EXPECT_FALSE(t.unk_id.has_value());
  EXPECT_EQ(t.seed_pieces, 3u);
  EXPECT_EQ(t.em_iterations, 2u);
  EXPECT_EQ(t.prunings, 0u);
}

// HF's test_unigram_chars: the seeds of "This is a" and "こんにちは友達" are their 13 characters, "is "
// and "s " (each twice, each followed by two different characters); "is" is always followed by " ".
TEST(UnigramTrainer, SeedsAreCharactersAndBranchingRepeats) {
  const TrainedUnigram t =
      UnigramTrainer(UnigramTrainerOptions{}).train(counts_of({{"This is a", 1}, {"こんにちは友達", 1}}));
  EXPECT_EQ(t.seed_pieces, 15u);
  EXPECT_EQ(t.required_chars, 13u);
  EXPECT_EQ(t.pieces.front().first, "is ");  // HF: ('is ', -2.01987734493) first
  EXPECT_NEAR(t.pieces.front().second, -2.01987734493, 1e-9);
}

// HF's test_unk_token and test_special_tokens, on {"The": 12, "are": 11}: unk_token goes first when it
// is not a special token, stays where it is when it is one, and is absent without one. The pieces
// (HF: e -1.1132, then T and h, then a and r; its order within a tie changes from run to run) follow
// in score order, ties by code point.
TEST(UnigramTrainer, UnkTokenAndSpecialTokensComeFirst) {
  const WordCounts words = counts_of({{"The", 12}, {"are", 11}});
  const Pieces body{
      {"e", -1.113245040}, {"T", -1.784180945}, {"h", -1.784180945}, {"a", -1.875090036}, {"r", -1.875090036}};
  UnigramTrainerOptions o;
  TrainedUnigram t = UnigramTrainer(o).train(words);
  EXPECT_EQ(rounded(t), body);
  EXPECT_FALSE(t.unk_id.has_value());

  o.special_tokens = {"[SEP]", "[CLS]"};
  o.unk_token = "[UNK]";
  t = UnigramTrainer(o).train(words);
  Pieces expected{{"[UNK]", 0}, {"[SEP]", 0}, {"[CLS]", 0}};
  expected.insert(expected.end(), body.begin(), body.end());
  EXPECT_EQ(rounded(t), expected);
  EXPECT_EQ(t.unk_id, 0u);

  o.special_tokens = {"[SEP]", "[CLS]", "[UNK]"};
  t = UnigramTrainer(o).train(words);
  expected = {{"[SEP]", 0}, {"[CLS]", 0}, {"[UNK]", 0}};
  expected.insert(expected.end(), body.begin(), body.end());
  EXPECT_EQ(rounded(t), expected);
  EXPECT_EQ(t.unk_id, 2u);
}

// A learned piece equal to a special token is listed once, as the special token (HF lists it twice).
TEST(UnigramTrainer, APieceEqualToASpecialTokenIsListedOnce) {
  UnigramTrainerOptions o;
  o.special_tokens = {"ab"};
  const TrainedUnigram t = UnigramTrainer(o).train(counts_of({{"abab", 1}}));
  EXPECT_EQ(rounded(t), (Pieces{{"ab", 0}, {"b", 0.0001}, {"a", 0}}));
}

// initial_alphabet's characters are in the vocabulary though no word has them: a character the model
// lacks scores the smallest score + 0.0001 per such character before it (code-point order).
TEST(UnigramTrainer, InitialAlphabetJoinsTheRequiredCharacters) {
  UnigramTrainerOptions o;
  o.initial_alphabet = {U'z', U'x'};
  const TrainedUnigram t = UnigramTrainer(o).train(counts_of({{"abab", 1}}));
  // a 0, b 0.0001, x 0.0002, z 0.0003: sorted by score.
  EXPECT_EQ(rounded(t), (Pieces{{"z", 0.0003}, {"x", 0.0002}, {"b", 0.0001}, {"a", 0}, {"ab", 0}}));
  EXPECT_EQ(t.required_chars, 4u);
}

// The vocabulary stops at vocab_size: the required characters first, then the model's pieces in
// order. Seeds "cd" and "ab" (equal scores: the larger string first) outlive their characters; the
// characters come back, with the model's smallest score s plus 0.0001 per character before them
// (a s, b s+0.0001, c s+0.0002, d s+0.0003), and "cd" fills the fifth place.
TEST(UnigramTrainer, VocabSizeCapsTheModelsPieces) {
  UnigramTrainerOptions o;
  o.vocab_size = 5;
  const TrainedUnigram t = UnigramTrainer(o).train(counts_of({{"abab", 1}, {"cdcd", 1}}));
  std::vector<std::string> texts;
  for (const auto& [text, score] : t.pieces) texts.push_back(text);
  // HF adds the characters in its hash set's order, so its ranks among a-d change from run to run.
  EXPECT_EQ(texts, (std::vector<std::string>{"d", "c", "b", "a", "cd"}));
  EXPECT_NEAR(t.pieces[0].second - t.pieces[4].second, 0.0003, 1e-12);
}

TEST(UnigramTrainer, ClearErrors) {
  UnigramTrainerOptions o;
  o.vocab_size = 4;
  o.special_tokens = {"<s>", "</s>"};
  try {
    UnigramTrainer(o).train(counts_of({{"abc", 1}}));
    FAIL() << "3 characters and 2 specials fit in 4";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("vocab size 4 cannot hold the 3 characters of the words and 2 special tokens"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(UnigramTrainer(UnigramTrainerOptions{}).train(WordCounts{}), BadInput);
  o = UnigramTrainerOptions{};
  o.shrinking_factor = 1;
  EXPECT_THROW(UnigramTrainer{o}, BadInput);
  o = UnigramTrainerOptions{};
  o.special_tokens = {"<s>", "<s>"};
  EXPECT_THROW(UnigramTrainer{o}, BadInput);
  o = UnigramTrainerOptions{};
  o.max_piece_length = 0;
  EXPECT_THROW(UnigramTrainer{o}, BadInput);
}

// The same pieces and scores, bit for bit, on 1, 2, 3 and 5 threads, and whatever order the words
// were counted in.
TEST(UnigramTrainer, IndependentOfThreadsAndWordOrder) {
  std::vector<std::pair<std::string, uint64_t>> items;
  const char* syllables[] = {"ka", "ro", "mi", "tse", "lu", "pan", "do", "é", "中", "qu", "x", "ing"};
  uint64_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::string w = "▁";
    for (int k = 0; k < 1 + static_cast<int>((x >> 60) % 4); ++k) w += syllables[(x >> (8 * k + 8)) % 12];
    items.emplace_back(w, 1 + (x >> 20) % 50);
  }
  WordCounts forward, backward;
  for (const auto& [w, c] : items) forward.add(w, c);
  for (auto it = items.rbegin(); it != items.rend(); ++it) backward.add(it->first, it->second);
  UnigramTrainerOptions o;
  o.vocab_size = 300;
  o.threads = 1;
  const TrainedUnigram reference = UnigramTrainer(o).train(forward);
  ASSERT_GT(reference.prunings, 0u);
  for (size_t threads : {2, 3, 5}) {
    o.threads = threads;
    const TrainedUnigram t = UnigramTrainer(o).train(threads == 3 ? backward : forward);
    ASSERT_EQ(t.pieces.size(), reference.pieces.size()) << threads;
    for (size_t i = 0; i < t.pieces.size(); ++i) {
      EXPECT_EQ(t.pieces[i], reference.pieces[i]) << threads << " threads, id " << i;
    }
  }
}

// Against HF's UnigramTrainer on the same counted words (its Metaspace pre-tokenizer), vocab 4,000
// with RoBERTa's specials and <unk>: both vocabularies encode the held-out lines with HF's own Unigram
// model, and ours must need no more than 1% more (or fewer) tokens per word than HF's.
TEST(UnigramTrainerPeer, TokensPerWordWithinOnePercentOfHuggingFace) {
  BERTPT_REQUIRE_PEER();
  testing::TempDir dir;
  std::string files;
  for (const std::string& f : testing::trainer_peer_corpus()) {
    files += " " + testing::shell_quote(testing::shared_data_dir() + "/" + f);
  }
  const nlohmann::json hf = nlohmann::json::parse(
      testing::run_peer("unigram_trainer_peer.py train " + testing::shell_quote(dir.path()) + " 4000" + files));
  const WordCounts words = testing::read_word_counts_tsv(dir.file("words.tsv"));
  ASSERT_GT(words.size(), 10000u);

  UnigramTrainerOptions o;
  o.vocab_size = 4000;
  o.special_tokens = {"<s>", "<pad>", "</s>", "<unk>", "<mask>"};
  o.unk_token = "<unk>";
  const TrainedUnigram ours = UnigramTrainer(o).train(words);
  ASSERT_EQ(ours.pieces.size(), hf["tokens"].get<size_t>());
  EXPECT_EQ(ours.unk_id, hf["unk_id"].get<uint32_t>());
  std::string tsv;
  for (const auto& [text, score] : ours.pieces) {
    char number[32];
    std::snprintf(number, sizeof number, "%.17g", score);
    tsv += text + "\t" + number + "\n";
  }
  testing::write_file(dir.file("ours.tsv"), tsv);
  const nlohmann::json mine = nlohmann::json::parse(
      testing::run_peer("unigram_trainer_peer.py encode " + testing::shell_quote(dir.file("ours.tsv")) + " 3" + files));

  std::unordered_set<std::string> hf_pieces;
  for (const std::string& line : testing::read_token_lines(dir.file("vocab.tsv"))) {
    hf_pieces.insert(line.substr(0, line.rfind('\t')));
  }
  size_t shared = 0;
  for (const auto& [text, score] : ours.pieces) shared += hf_pieces.count(text);
  const double overlap = static_cast<double>(shared) / hf_pieces.size();
  const double hf_tpw = hf["tokens_per_word"].get<double>(), our_tpw = mine["tokens_per_word"].get<double>();
  std::printf("Unigram, vocab 4000: overlap with HF %.4f; held-out tokens per word: HF %.4f, ours %.4f\n", overlap,
              hf_tpw, our_tpw);
  EXPECT_NEAR(our_tpw / hf_tpw, 1.0, 0.01);
  EXPECT_GE(overlap, 0.98);
}

}  // namespace
}  // namespace bertpt::tokenizer
