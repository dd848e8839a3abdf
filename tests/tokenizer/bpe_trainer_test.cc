// BpeTrainer (tokenizer/trainer.h) as plain and byte-level BPE: exact small cases derived by hand
// from the header's rules (each checked against tokenizers 0.23.3's BpeTrainer), and byte-level
// training on a multilingual corpus against HF's own (tests/peer/bpe_trainer_peer.py).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.h"
#include "peer.h"
#include "tokenizer/pre_tokenizers/byte_level.h"
#include "tokenizer/trainer.h"
#include "trainer_test_util.h"

namespace bertpt::tokenizer {
namespace {

using Tokens = std::vector<std::string>;
using Merges = std::vector<std::pair<std::string, std::string>>;

using testing::counts_of;

TrainedVocabulary train(const BpeTrainerOptions& o, std::initializer_list<std::pair<const char*, uint64_t>> items) {
  return BpeTrainer(o).train(counts_of(items));
}

// The 256 characters of GPT-2's byte map (HF's ByteLevel.alphabet()), byte-level BPE's initial alphabet.
std::vector<char32_t> byte_level_alphabet() {
  std::vector<char32_t> out;
  for (int b = 0; b < 256; ++b) out.push_back(ByteLevel::byte_to_char(static_cast<uint8_t>(b)));
  return out;
}

// HF BpeTrainer's defaults: vocab 30,000, no specials, no prefix or suffix, no limits.
TEST(BpeTrainer, DefaultsAreHuggingFaces) {
  const BpeTrainerOptions o;
  EXPECT_EQ(o.vocab_size, 30000u);
  EXPECT_EQ(o.min_frequency, 0u);
  EXPECT_FALSE(o.limit_alphabet.has_value());
  EXPECT_TRUE(o.initial_alphabet.empty());
  EXPECT_TRUE(o.special_tokens.empty());
  EXPECT_EQ(o.continuing_subword_prefix, "");
  EXPECT_EQ(o.end_of_word_suffix, "");
  EXPECT_FALSE(o.max_token_length.has_value());
  // The WordPiece preset differs only in its prefix and BERT's specials.
  const WordPieceTrainerOptions w;
  EXPECT_EQ(w.continuing_subword_prefix, "##");
  EXPECT_EQ(w.special_tokens, (Tokens{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}));
  EXPECT_EQ(w.vocab_size, 30000u);
}

// a=0 b=1. Pairs (a,a)=3, (a,b)=3+2: "ab" (2). In aab, (a,a) loses 3 and (a,ab) gains 3: "aab" (3).
TEST(BpeTrainer, PlainBpeExactVocabularyAndMerges) {
  const TrainedVocabulary v = train(BpeTrainerOptions{}, {{"aab", 3}, {"ab", 2}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "ab", "aab"}));
  EXPECT_EQ(v.merge_pairs, (Merges{{"a", "b"}, {"a", "ab"}}));
  EXPECT_EQ(v.merges, 2u);
  EXPECT_EQ(v.continuation_tokens, 0u);
  EXPECT_EQ(v.stop_reason, "no_pairs");
}

// Ties go to the smaller pair of ids, not of strings: a=0 b=1 c=2; (a,a), (a,c) and (b,c) all count
// 2, so "aa" (3) comes first; then (b,c) = (1,2) beats (aa,c) = (3,2), though "aa" < "b".
TEST(BpeTrainer, TiesGoToTheSmallerPairOfIds) {
  const TrainedVocabulary v = train(BpeTrainerOptions{}, {{"aac", 2}, {"bc", 2}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "c", "aa", "bc", "aac"}));
  EXPECT_EQ(v.merge_pairs, (Merges{{"a", "a"}, {"b", "c"}, {"aa", "c"}}));
}

// initial_alphabet's characters are in the alphabet even when no word has them, and a limit drops
// them last (they count as the largest count): z stays, and of a and b (1 each) the smaller, a.
TEST(BpeTrainer, InitialAlphabetIsAlwaysKept) {
  BpeTrainerOptions o;
  o.initial_alphabet = {U'é'};
  EXPECT_EQ(train(o, {{"ab", 1}}).tokens, (Tokens{"a", "b", "é", "ab"}));
  o.initial_alphabet = {U'z', U'a'};
  o.limit_alphabet = 2;
  const TrainedVocabulary v = train(o, {{"ab", 1}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "z"}));  // "ab" lost its b: one symbol, nothing to merge
  EXPECT_EQ(v.alphabet_dropped, 1u);
}

// A merge that re-creates a special token keeps the special's id (HF: ['<s>', 'ab', 'a', 'b']).
TEST(BpeTrainer, MergeEqualToASpecialTokenKeepsItsId) {
  BpeTrainerOptions o;
  o.special_tokens = {"<s>", "ab"};
  const TrainedVocabulary v = train(o, {{"ab", 1}});
  EXPECT_EQ(v.tokens, (Tokens{"<s>", "ab", "a", "b"}));
  EXPECT_EQ(v.merge_pairs, (Merges{{"a", "b"}}));
  EXPECT_EQ(v.merge_tokens, 0u);
}

// The suffix marks a word's last character, also in a one-character word: "b</w>" is in 2 words, so
// it comes before "a</w>" (1). A word whose last character left the alphabet has no suffixed token.
TEST(BpeTrainer, EndOfWordSuffixForms) {
  BpeTrainerOptions o;
  o.end_of_word_suffix = "</w>";
  TrainedVocabulary v = train(o, {{"ab", 2}, {"b", 1}, {"ba", 1}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "b</w>", "a</w>", "ab</w>", "ba</w>"}));
  EXPECT_EQ(v.merge_pairs, (Merges{{"a", "b</w>"}, {"b", "a</w>"}}));
  EXPECT_EQ(v.continuation_tokens, 2u);
  o.limit_alphabet = 2;  // c (1) goes: "ac" is just "a"
  v = train(o, {{"ab", 5}, {"ac", 1}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "b</w>", "ab</w>"}));
}

// Prefix and suffix together: forms in as many words are numbered by code point, then prefix-only,
// suffix-only, both (HF numbers them in its hash map's order). The merged token drops the right
// side's prefix.
TEST(BpeTrainer, PrefixAndSuffixTogether) {
  BpeTrainerOptions o;
  o.continuing_subword_prefix = "##";
  o.end_of_word_suffix = "</w>";
  const TrainedVocabulary v = train(o, {{"abc", 1}, {"b", 1}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "c", "##b", "b</w>", "##c</w>", "ab", "abc</w>"}));
  EXPECT_EQ(v.merge_pairs, (Merges{{"a", "##b"}, {"ab", "##c</w>"}}));
}

// max_token_length: a merge forms a neighbour pair only when both together are shorter (HF's `<`):
// with 4, (ab, cd) would make 4 characters and is never counted; with 5 it is. Pairs of two
// characters count whatever the limit.
TEST(BpeTrainer, MaxTokenLengthIsStrictAndSparesCharacterPairs) {
  BpeTrainerOptions o;
  EXPECT_EQ(train(o, {{"abcd", 1}}).tokens, (Tokens{"a", "b", "c", "d", "ab", "cd", "abcd"}));
  o.max_token_length = 4;
  const TrainedVocabulary v = train(o, {{"abcd", 1}});
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "c", "d", "ab", "cd"}));
  EXPECT_EQ(v.merge_pairs, (Merges{{"a", "b"}, {"c", "d"}}));
  o.max_token_length = 5;
  EXPECT_EQ(train(o, {{"abcd", 1}}).tokens, (Tokens{"a", "b", "c", "d", "ab", "cd", "abcd"}));
  o.max_token_length = 1;
  EXPECT_EQ(train(o, {{"ab", 1}}).tokens, (Tokens{"a", "b", "ab"}));
}

TEST(BpeTrainer, BadOptionsAreClearErrors) {
  BpeTrainerOptions o;
  o.max_token_length = 0;
  EXPECT_THROW(BpeTrainer{o}, BadInput);
  o = BpeTrainerOptions{};
  o.initial_alphabet = {0xD800};
  try {
    BpeTrainer t(o);
    FAIL() << "a surrogate was accepted";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("U+D800"), std::string::npos) << e.what();
  }
  o = BpeTrainerOptions{};
  o.vocab_size = 3;  // the alphabet alone is 3: "2 special + 2 alphabet characters" do not fit
  o.special_tokens = {"<s>", "</s>"};
  try {
    BpeTrainer(o).train(counts_of({{"ab", 1}}));
    FAIL() << "an initial vocabulary larger than vocab_size was accepted";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("initial vocabulary of 4 tokens (2 special + 2 alphabet characters)"),
              std::string::npos)
        << e.what();
  }
}

// Byte-level BPE against HF's BpeTrainer on the same words (HF's ByteLevel pre-tokenizer counted
// them), vocab 5,000 with RoBERTa's specials and the 256 byte characters: plain BPE leaves HF
// nothing to chance, so the vocabulary and the merges must be HF's, id for id and rank for rank.
TEST(BpeTrainerPeer, ByteLevelIsIdenticalToHuggingFace) {
  BERTPT_REQUIRE_PEER();
  testing::TempDir dir;
  std::string files;
  for (const std::string& f : testing::trainer_peer_corpus()) {
    files += " " + testing::shell_quote(testing::shared_data_dir() + "/" + f);
  }
  testing::run_peer("bpe_trainer_peer.py " + testing::shell_quote(dir.path()) + " 5000" + files);
  const WordCounts words = testing::read_word_counts_tsv(dir.file("words.tsv"));
  ASSERT_GT(words.size(), 10000u);
  const Tokens hf_vocab = testing::read_token_lines(dir.file("vocab.txt"));
  const Tokens hf_merges = testing::read_token_lines(dir.file("merges.txt"));
  ASSERT_EQ(hf_vocab.size(), 5000u);

  BpeTrainerOptions o;
  o.vocab_size = 5000;
  o.special_tokens = {"<s>", "<pad>", "</s>", "<unk>", "<mask>"};
  o.initial_alphabet = byte_level_alphabet();
  const TrainedVocabulary v = BpeTrainer(o).train(words);
  const std::unordered_set<std::string> ours(v.tokens.begin(), v.tokens.end());
  size_t shared = 0;
  for (const std::string& t : hf_vocab) shared += ours.count(t);
  const double overlap = static_cast<double>(shared) / hf_vocab.size();
  std::printf("byte-level BPE, vocab 5000: overlap with HF %.4f, merges %zu (HF %zu)\n", overlap, v.merge_pairs.size(),
              hf_merges.size());
  EXPECT_GE(overlap, 0.999);
  EXPECT_EQ(v.tokens, hf_vocab);
  Tokens our_merges;
  for (const auto& [left, right] : v.merge_pairs) our_merges.push_back(left + " " + right);
  EXPECT_EQ(our_merges, hf_merges);
}

}  // namespace
}  // namespace bertpt::tokenizer
