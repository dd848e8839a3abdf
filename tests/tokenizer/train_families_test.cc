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

TEST(TrainFamilies, ByteLevelBpeLoadsInTransformersAndEncodesTheSame) { train_and_compare("bpe", "<s>"); }

TEST(TrainFamilies, UnigramLoadsInTransformersAndEncodesTheSame) { train_and_compare("unigram", "<s>"); }

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
