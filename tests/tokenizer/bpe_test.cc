// The BPE model (tokenizer/models/bpe.h): merges by rank, unknown characters (unk, fuse_unk,
// byte_fallback), continuing_subword_prefix / end_of_word_suffix, ignore_merges, the word cache, the
// tokenizer.json forms it reads and the one it writes, the errors; then the whole byte-level family
// against Hugging Face tokenizers itself (tests/peer/bpe_peer.py).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/test_util.h"
#include "peer.h"
#include "tokenizer/decoders/decoder.h"
#include "tokenizer/models/bpe.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {
namespace {

using Vocab = std::vector<std::pair<std::string, uint32_t>>;
using Merges = std::vector<std::pair<std::string, std::string>>;

Vocab numbered(const std::vector<std::string>& tokens) {
  Vocab v;
  for (size_t i = 0; i < tokens.size(); ++i) v.emplace_back(tokens[i], uint32_t(i));
  return v;
}

std::vector<uint32_t> encode(const Bpe& bpe, std::string_view word) {
  std::vector<uint32_t> ids;
  bpe.encode_word(word, ids);
  return ids;
}

std::vector<std::string> tokens(const Bpe& bpe, std::string_view word) {
  std::vector<std::string> out;
  for (const uint32_t id : encode(bpe, word)) out.emplace_back(bpe.id_to_token(id));
  return out;
}

const BpeSource kSource{"tokenizer.json", "model"};

std::shared_ptr<const Bpe> from_json_text(const std::string& text) {
  const nlohmann::json model = nlohmann::json::parse(text);
  return Bpe::from_json(JsonFields(model, "tokenizer.json", "model"));
}

TEST(Bpe, LowestRankMergesFirst) {
  // "abc": the pairs are (a, b) rank 1 and (b, c) rank 0, so b+c first, then a+bc (rank 2).
  const Bpe bpe(numbered({"a", "b", "c", "ab", "bc", "abc"}), {{"b", "c"}, {"a", "b"}, {"a", "bc"}}, {}, kSource);
  EXPECT_EQ(tokens(bpe, "abc"), (std::vector<std::string>{"abc"}));
  EXPECT_EQ(tokens(bpe, "abab"), (std::vector<std::string>{"ab", "ab"}));
  EXPECT_EQ(tokens(bpe, "cab"), (std::vector<std::string>{"c", "ab"}));
  // Without (a, bc), "abc" stops at a + bc: a+b (rank 1) never comes, b is already taken.
  const Bpe two(numbered({"a", "b", "c", "ab", "bc"}), {{"b", "c"}, {"a", "b"}}, {}, kSource);
  EXPECT_EQ(tokens(two, "abc"), (std::vector<std::string>{"a", "bc"}));
}

TEST(Bpe, EqualRanksMergeLeftmostFirst) {
  const Bpe bpe(numbered({"a", "aa", "aaaa"}), {{"a", "a"}, {"aa", "aa"}}, {}, kSource);
  EXPECT_EQ(tokens(bpe, "aaa"), (std::vector<std::string>{"aa", "a"}));
  EXPECT_EQ(tokens(bpe, "aaaaa"), (std::vector<std::string>{"aaaa", "a"}));
  EXPECT_EQ(tokens(bpe, "aaaaaa"), (std::vector<std::string>{"aaaa", "aa"}));
}

TEST(Bpe, UnknownCharactersWithoutUnkTokenAreDropped) {
  const Bpe bpe(numbered({"a", "b", "ab"}), {{"a", "b"}}, {}, kSource);
  // x is unknown and there is no unk_token: HF adds nothing for it, and a, b still merge.
  EXPECT_EQ(tokens(bpe, "axb"), (std::vector<std::string>{"ab"}));
  EXPECT_EQ(encode(bpe, "xyz"), std::vector<uint32_t>{});
}

TEST(Bpe, UnkTokenFusedOrNot) {
  BpeOptions o;
  o.unk_token = "<unk>";
  const Bpe separate(numbered({"<unk>", "a"}), {}, o, kSource);
  EXPECT_EQ(tokens(separate, "axyа"), (std::vector<std::string>{"a", "<unk>", "<unk>", "<unk>"}));
  o.fuse_unk = true;
  const Bpe fused(numbered({"<unk>", "a"}), {}, o, kSource);
  EXPECT_EQ(tokens(fused, "axya"), (std::vector<std::string>{"a", "<unk>", "a"}));
  EXPECT_EQ(tokens(fused, "xéy"), (std::vector<std::string>{"<unk>"}));
  EXPECT_EQ(fused.unk_id(), std::optional<uint32_t>(0));
}

TEST(Bpe, UnkTokenMissingFromTheVocabularyFailsOnlyWhenNeeded) {
  BpeOptions o;
  o.unk_token = "<unk>";
  const Bpe bpe(numbered({"a"}), {}, o, kSource);
  EXPECT_EQ(bpe.unk_id(), std::nullopt);
  EXPECT_EQ(tokens(bpe, "aa"), (std::vector<std::string>{"a", "a"}));
  EXPECT_THROW(encode(bpe, "ax"), BadInput);
}

TEST(Bpe, ByteFallback) {
  BpeOptions o;
  o.unk_token = "<unk>";
  o.byte_fallback = true;
  // é is C3 A9, ü is C3 BC (no <0xBC>: ü falls back to unk).
  const Bpe bpe(numbered({"<unk>", "<0xC3>", "<0xA9>", "a"}), {}, o, kSource);
  EXPECT_EQ(tokens(bpe, "aé"), (std::vector<std::string>{"a", "<0xC3>", "<0xA9>"}));
  EXPECT_EQ(tokens(bpe, "üa"), (std::vector<std::string>{"<unk>", "a"}));
  // HF writes a pending unk only when the next known character comes: byte-fallback tokens in
  // between go first (models/bpe/model.rs merge_word `continue`s past the flush).
  EXPECT_EQ(tokens(bpe, "üé"), (std::vector<std::string>{"<0xC3>", "<0xA9>", "<unk>"}));
  EXPECT_EQ(tokens(bpe, "üéa"), (std::vector<std::string>{"<0xC3>", "<0xA9>", "<unk>", "a"}));
}

TEST(Bpe, ContinuingSubwordPrefix) {
  BpeOptions o;
  o.continuing_subword_prefix = "##";
  // The merge (a, ##b) makes "ab": HF joins the left token and the right one less the prefix.
  const Bpe bpe(numbered({"a", "b", "##a", "##b", "ab", "##ab"}), {{"a", "##b"}, {"##a", "##b"}}, o, kSource);
  EXPECT_EQ(tokens(bpe, "ab"), (std::vector<std::string>{"ab"}));
  EXPECT_EQ(tokens(bpe, "bab"), (std::vector<std::string>{"b", "##ab"}));
  EXPECT_EQ(tokens(bpe, "ba"), (std::vector<std::string>{"b", "##a"}));
}

TEST(Bpe, EndOfWordSuffix) {
  BpeOptions o;
  o.end_of_word_suffix = "</w>";
  const Bpe bpe(numbered({"a", "b", "b</w>", "a</w>", "ab</w>"}), {{"a", "b</w>"}}, o, kSource);
  EXPECT_EQ(tokens(bpe, "ab"), (std::vector<std::string>{"ab</w>"}));
  EXPECT_EQ(tokens(bpe, "ba"), (std::vector<std::string>{"b", "a</w>"}));
  EXPECT_EQ(tokens(bpe, "a"), (std::vector<std::string>{"a</w>"}));
}

TEST(Bpe, IgnoreMerges) {
  // "abc" is in the vocabulary but no merge builds it.
  const Vocab vocab = numbered({"a", "b", "c", "ab", "abc"});
  const Bpe merging(vocab, {{"a", "b"}}, {}, kSource);
  EXPECT_EQ(tokens(merging, "abc"), (std::vector<std::string>{"ab", "c"}));
  BpeOptions o;
  o.ignore_merges = true;
  const Bpe whole(vocab, {{"a", "b"}}, o, kSource);
  EXPECT_EQ(tokens(whole, "abc"), (std::vector<std::string>{"abc"}));
  EXPECT_EQ(tokens(whole, "abcab"), (std::vector<std::string>{"ab", "c", "ab"}));
}

TEST(Bpe, DuplicateMergeKeepsItsLastRank) {
  // (b, c) listed first and again last: its rank is 2, so a+b (rank 1) wins in "abc".
  const Vocab vocab = numbered({"a", "b", "c", "ab", "bc"});
  const Bpe bpe(vocab, {{"b", "c"}, {"a", "b"}, {"b", "c"}}, {}, kSource);
  EXPECT_EQ(tokens(bpe, "abc"), (std::vector<std::string>{"ab", "c"}));
  EXPECT_EQ(bpe.to_json()["merges"].dump(), R"([["a","b"],["b","c"]])");
}

TEST(Bpe, CacheGivesTheSameIdsAndLongWordsBypassIt) {
  const Bpe bpe(numbered({"a", "b", "ab", "abab"}), {{"a", "b"}, {"ab", "ab"}}, {}, kSource);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(tokens(bpe, "ababa"), (std::vector<std::string>{"abab", "a"}));
  }
  std::string long_word;
  for (int i = 0; i < 300; ++i) long_word += "ab";
  EXPECT_EQ(encode(bpe, long_word), std::vector<uint32_t>(150, 3));
  EXPECT_EQ(encode(bpe, long_word), std::vector<uint32_t>(150, 3));
  // Two models with different merges never see each other's cached words.
  const Bpe other(numbered({"a", "b", "ab", "abab"}), {}, {}, kSource);
  EXPECT_EQ(tokens(other, "ababa"), (std::vector<std::string>{"a", "b", "a", "b", "a"}));
  EXPECT_EQ(tokens(bpe, "ababa"), (std::vector<std::string>{"abab", "a"}));
}

TEST(Bpe, ThreadsAgreeWithOneThread) {
  const Bpe bpe(numbered({"a", "b", "c", "ab", "bc", "abc", "ca"}), {{"b", "c"}, {"a", "b"}, {"a", "bc"}, {"c", "a"}},
                {}, kSource);
  std::mt19937 rng(7);
  std::vector<std::string> words(20000);
  for (std::string& w : words) {
    const size_t n = 1 + rng() % 12;
    for (size_t i = 0; i < n; ++i) w += "abc"[rng() % 3];
  }
  std::vector<std::vector<uint32_t>> expected;
  for (const std::string& w : words) expected.push_back(encode(bpe, w));
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = t; i < words.size(); i += 3) wrong[t] += encode(bpe, words[i]) != expected[i];
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

TEST(Bpe, ReadsBothMergeFormsAndWritesPairs) {
  const char* pairs = R"({"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
      "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
      "vocab": {"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4}, "merges": [["a", "b"], ["ab", "c"]]})";
  const char* legacy = R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4},
      "merges": ["#version: 0.2", "a b", "ab c"]})";
  const auto from_pairs = from_json_text(pairs);
  const auto from_legacy = from_json_text(legacy);
  EXPECT_EQ(encode(*from_pairs, "abc"), std::vector<uint32_t>{4});
  EXPECT_EQ(encode(*from_legacy, "abc"), std::vector<uint32_t>{4});
  // Exactly HF's serialization: keys in this order, vocab by id, merges as pairs.
  const std::string expected =
      R"({"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,"end_of_word_suffix":null,)"
      R"("fuse_unk":false,"byte_fallback":false,"ignore_merges":false,"vocab":{"a":0,"b":1,"ab":2,"c":3,"abc":4},)"
      R"("merges":[["a","b"],["ab","c"]]})";
  EXPECT_EQ(from_pairs->to_json().dump(), expected);
  EXPECT_EQ(from_legacy->to_json().dump(), expected);
}

TEST(Bpe, OptionsRoundTripAndDropoutIsKeptButNotApplied) {
  const auto bpe = from_json_text(R"({"type": "BPE", "dropout": 0.1, "unk_token": "<unk>",
      "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>", "fuse_unk": true, "byte_fallback": true,
      "ignore_merges": true, "vocab": {"<unk>": 0, "a": 1, "##b</w>": 2, "ab</w>": 3}, "merges": [["a", "##b</w>"]]})");
  EXPECT_EQ(bpe->to_json().dump(),
            R"({"type":"BPE","dropout":0.1,"unk_token":"<unk>","continuing_subword_prefix":"##",)"
            R"("end_of_word_suffix":"</w>","fuse_unk":true,"byte_fallback":true,"ignore_merges":true,)"
            R"("vocab":{"<unk>":0,"a":1,"##b</w>":2,"ab</w>":3},"merges":[["a","##b</w>"]]})");
  // With dropout 0.1 HF would sometimes skip the merge; bertpt always applies it.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(encode(*bpe, "ab"), std::vector<uint32_t>{3});
}

TEST(Bpe, BadFilesNameTheField) {
  const auto error = [](const std::string& model) { return testing::error_of([&] { from_json_text(model); }); };
  EXPECT_EQ(error(R"({"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"], ["a", "x"]]})"),
            "tokenizer.json: field \"model.merges[1]\" names 'x', which is not in the vocabulary");
  EXPECT_EQ(error(R"({"vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]})"),
            "tokenizer.json: field \"model.merges[0]\" makes 'ab', which is not in the vocabulary");
  EXPECT_EQ(error(R"({"vocab": {"a": 0, "b": 0}, "merges": []})"),
            "tokenizer.json: field \"model.vocab\" gives id 0 twice ('a' and 'b')");
  EXPECT_EQ(error(R"({"vocab": {"a": 0, "b": 5000}, "merges": []})"),
            "tokenizer.json: field \"model.vocab\" has id 5000, out of range for a vocabulary of 2 tokens");
  EXPECT_EQ(error(R"({"vocab": {"a": 0}, "merges": [], "dropout": 1.5})"),
            "tokenizer.json: field \"model.dropout\" is 1.500000, not in [0, 1]");
  EXPECT_EQ(error(R"({"vocab": {"a": 0}, "merges": ["a b c"]})"),
            "tokenizer.json: field \"model.merges[0]\" is 'a b c', not two tokens separated by one space");
  EXPECT_EQ(error(R"({"vocab": {"a": 0}, "merges": [["a"]]})"),
            "tokenizer.json: field \"model.merges[0]\" is an array, expected a pair of tokens");
  EXPECT_EQ(error(R"({"vocab": {"a": 0}})"), "tokenizer.json: field \"model.merges\" is missing");
}

TEST(Bpe, GapsInIdsAreAllowed) {
  const Bpe bpe({{"a", 0}, {"b", 2}, {"ab", 5}}, {{"a", "b"}}, {}, kSource);
  EXPECT_EQ(bpe.size(), 3u);
  EXPECT_EQ(bpe.id_limit(), 6u);
  EXPECT_FALSE(bpe.has_id(1));
  EXPECT_EQ(bpe.id_to_token(1), "");
  EXPECT_EQ(bpe.id_to_token(5), "ab");
  EXPECT_EQ(encode(bpe, "ab"), std::vector<uint32_t>{5});
  EXPECT_EQ(bpe.to_json()["vocab"].dump(), R"({"a":0,"b":2,"ab":5})");
}

// ---- against Hugging Face tokenizers ----

// The words, ids and decoded text of each input through `tokenizer_json`'s pre-tokenizer, model and
// decoder, compared with what HF computed (bpe_peer.py build): what bertpt's Tokenizer does between
// added tokens when there is no normalizer.
void check_against_peer(const std::string& dir, const std::string& name, const nlohmann::json& inputs) {
  const std::string path = dir + "/" + name + "/tokenizer.json";
  const nlohmann::json file = read_json_file(path);
  const ModelPtr model = read_model(JsonValue(file["model"], path, "model"));
  const PreTokenizerPtr pre = read_pre_tokenizer(JsonValue(file["pre_tokenizer"], path, "pre_tokenizer"));
  const DecoderPtr decoder = file["decoder"].is_null() ? nullptr
                                                       : read_decoder(JsonValue(file["decoder"], path, "decoder"));
  std::ifstream expected_lines(dir + "/" + name + "/expected.jsonl");
  size_t wrong = 0, checked = 0;
  Words words;
  for (const auto& input : inputs) {
    std::string line;
    ASSERT_TRUE(std::getline(expected_lines, line)) << name;
    const nlohmann::json expected = nlohmann::json::parse(line);
    const std::string text = input.get<std::string>();
    words.reset(text, true);
    pre->pre_tokenize(words);
    std::vector<std::string> pieces, token_strings;
    std::vector<uint32_t> ids;
    for (size_t i = 0; i < words.size(); ++i) {
      pieces.emplace_back(words[i]);
      model->encode_word(words[i], ids);
    }
    for (const uint32_t id : ids) token_strings.emplace_back(model->id_to_token(id));
    const std::string decoded = decode_tokens(decoder.get(), token_strings);
    const bool same = pieces == expected["words"].get<std::vector<std::string>>() &&
                      ids == expected["ids"].get<std::vector<uint32_t>>() && decoded == expected["decoded"];
    if (!same && ++wrong <= 3)
      ADD_FAILURE() << name << ": input " << checked << " '" << text.substr(0, 80) << "' differs";
    ++checked;
  }
  EXPECT_EQ(wrong, 0u) << name << ": " << wrong << " of " << checked << " inputs differ";
  // And the components write back what HF wrote, key order included.
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(testing::slurp(path));
  EXPECT_EQ(model->to_json().dump(), ordered["model"].dump()) << name;
  EXPECT_EQ(pre->to_json().dump(), ordered["pre_tokenizer"].dump()) << name;
  if (decoder) {
    EXPECT_EQ(decoder->to_json().dump(), ordered["decoder"].dump()) << name;
  }
}

TEST(BpePeer, ByteLevelFamilyMatchesHuggingFace) {
  BERTPT_REQUIRE_PEER();
  const std::string dir = ::testing::TempDir() + "/bpe_peer";
  testing::run_peer("bpe_peer.py build " + testing::shell_quote(dir));
  const nlohmann::json manifest = read_json_file(dir + "/manifest.json");
  const nlohmann::json inputs = read_json_file(dir + "/inputs.json");
  ASSERT_GE(manifest["made"].size(), 10u);
  for (const auto& [name, what] : manifest["made"].items()) check_against_peer(dir, name, inputs);
}

}  // namespace
}  // namespace bertpt::tokenizer
