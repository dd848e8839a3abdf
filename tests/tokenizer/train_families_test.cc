// `bertpt tokenizer train --model bpe|unigram` end to end: the directory it writes loads in
// transformers' AutoTokenizer (tests/peer/auto_tokenizer.py), which encodes every line of a
// multilingual fixture to the ids `bertpt tokenizer encode` gives and knows the special tokens by
// their roles; and the options that cannot work are refused in one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "peer.h"
#include "tokenizer/hf_files.h"

namespace bertpt::tokenizer {
namespace {

using nlohmann::json;
using testing::run_bertpt;
using testing::shell_quote;
using testing::TempDir;

std::string fixture(const std::string& rel) { return testing::source_dir() + "/tests/fixtures/corpora/" + rel; }

// Lines of several scripts: the corpus trains on them and the check encodes them.
std::string corpus_files() {
  return shell_quote(fixture("nltk_gutenberg/austen-emma.txt")) + " -i " +
         shell_quote(fixture("nltk_udhr_utf8/Russian_Russky-UTF8")) + " -i " +
         shell_quote(fixture("nltk_udhr_utf8/Chinese_Mandarin-UTF8"));
}

void train_and_compare(const std::string& model, const std::string& expected_cls) {
  BERTPT_REQUIRE_PEER();
  TempDir dir;
  const std::string out = dir.path() + "/tok";
  const auto trained = run_bertpt("tokenizer train --quiet --model " + model + " --vocab-size 3000 -i " +
                                  corpus_files() + " -o " + shell_quote(out));
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const std::string input = dir.path() + "/input.txt";
  testing::write_file(input,
                      "It is a truth universally acknowledged, that a <mask> man\n"
                      "Все люди рождаются свободными и равными в своем достоинстве и правах.\n"
                      "人人生而自由,在尊严和权利上一律平等。\n"
                      "  spaces   inside\tand tabs, digits 12345 and émojis 🙂👍🏽\n"
                      "\n"
                      "Ünïcödé c\xcc\x81ombining marks");
  const std::string peer = testing::run_peer("auto_tokenizer.py " + shell_quote(out) + " " + shell_quote(input));
  std::istringstream records(peer);
  std::string line;
  ASSERT_TRUE(std::getline(records, line));
  const json header = json::parse(line);
  EXPECT_EQ(header["cls"], expected_cls);
  EXPECT_EQ(header["mask"], "<mask>");
  EXPECT_EQ(header["vocab_size"], 3000);
  const auto encoded = run_bertpt("tokenizer encode --quiet -t " + shell_quote(out) + " -i " + shell_quote(input));
  ASSERT_EQ(encoded.exit_code, 0) << encoded.err;
  std::istringstream ours(encoded.out);
  size_t lines = 0;
  for (std::string our_line; std::getline(records, line) && std::getline(ours, our_line); ++lines) {
    std::vector<uint32_t> ids;
    std::istringstream in(our_line);
    for (uint32_t id; in >> id;) ids.push_back(id);
    EXPECT_EQ(ids, json::parse(line)["ids"].get<std::vector<uint32_t>>()) << "line " << lines + 1;
  }
  EXPECT_EQ(lines, 6u);
}

TEST(TrainFamiliesPeer, ByteLevelBpeLoadsInTransformersAndEncodesTheSame) { train_and_compare("bpe", "<s>"); }

TEST(TrainFamiliesPeer, UnigramLoadsInTransformersAndEncodesTheSame) { train_and_compare("unigram", "<s>"); }

// Whole-word masking's word boundaries: a byte-level token continues a word unless it starts with
// "Ġ" (a space), a Metaspace token unless it starts with "▁"; special tokens never continue one.
TEST(TrainFamilies, WordStartsForWholeWordMasking) {
  TempDir dir;
  for (const std::string model : {"bpe", "unigram"}) {
    const std::string out = dir.path() + "/" + model;
    const auto trained = run_bertpt("tokenizer train --quiet --model " + model + " --vocab-size 600 -i " +
                                    shell_quote(fixture("nltk_gutenberg/austen-emma.txt")) + " -o " + shell_quote(out));
    ASSERT_EQ(trained.exit_code, 0) << trained.err;
    const Tokenizer tok = load_tokenizer(out);
    const std::vector<bool> continues = tok.word_continuations();
    ASSERT_EQ(continues.size(), tok.vocab_size());
    const std::string marker = model == "bpe" ? "\u0120" : "\u2581";
    size_t starts = 0;
    for (uint32_t id = 0; id < continues.size(); ++id) {
      const std::string token(tok.id_to_token(id));
      const bool special = tok.is_special(id);
      EXPECT_EQ(continues[id], !special && token.rfind(marker, 0) != 0) << model << " " << token;
      starts += !continues[id] && !special;
    }
    EXPECT_GT(starts, 50u) << model;
    std::vector<uint32_t> ids;
    // One word after a space: its first token starts it, the rest continue. (The first word of a text
    // has no space before it in byte-level BPE; masking starts a word after every special token.)
    tok.encode(" unbelievably", ids, false);
    ASSERT_GE(ids.size(), 2u);
    EXPECT_FALSE(continues[ids[0]]);
    for (size_t i = 1; i < ids.size(); ++i) EXPECT_TRUE(continues[ids[i]]) << tok.id_to_token(ids[i]);
  }
}

TEST(TrainFamilies, RefusesWhatCannotWork) {
  TempDir dir;
  const std::string args = " -i " + shell_quote(fixture("nltk_gutenberg/austen-emma.txt")) + " -o " +
                           shell_quote(dir.path() + "/t");
  const auto unknown = run_bertpt("tokenizer train --model sentencepiece" + args);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("--model"), std::string::npos) << unknown.err;
  const auto no_template = run_bertpt("tokenizer train --model bpe --special-tokens '<pad>,<unk>'" + args);
  EXPECT_NE(no_template.exit_code, 0);
  EXPECT_NE(no_template.err.find("must include <s> and </s>"), std::string::npos) << no_template.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
}

}  // namespace
}  // namespace bertpt::tokenizer
