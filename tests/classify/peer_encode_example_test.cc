// encode_example against Hugging Face tokenizers (Python tokenizers, tests/peer/peer.py) with
// truncation to several maximum lengths, on GLUE RTE's real sentence pairs read by our own TSV
// reader. The vocabulary is trained by HF on RTE's train split, so dev text has unseen words too.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>

#include "classify/encode.h"
#include "classify/labeled_data.h"
#include "common/test_util.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/peer.h"

namespace bertpt::classify {
namespace {

namespace fs = std::filesystem;
using testing::run_peer;
using testing::shell_quote;
using testing::TempDir;

std::string rte_dir() { return testing::shared_data_dir() + "/glue_rte_wnli_resplit/RTE"; }

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<uint32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s;
}

LabeledDataOptions rte_fields() {
  LabeledDataOptions o;
  o.text_field = "sentence1";
  o.text_pair_field = "sentence2";
  return o;
}

// One HF-trained tokenizer and the RTE dev pairs (plus edge cases) for the suite's process.
class PeerEncodeExample : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::peer_installed() || !fs::exists(rte_dir() + "/dev.tsv")) return;
    tmp_ = std::make_unique<TempDir>();
    fs::copy_file(rte_dir() + "/train.tsv", tmp_->file("train.tsv"));
    fs::copy_file(rte_dir() + "/dev.tsv", tmp_->file("dev.tsv"));
    std::string corpus;
    for (const Example& e : read_labeled_data(tmp_->file("train.tsv"), rte_fields(), true)) {
      corpus += e.text + "\n" + e.text_pair + "\n";
    }
    testing::write_file(tmp_->file("corpus.txt"), corpus);
    run_peer("peer.py train-bert " + shell_quote(tmp_->file("hf")) + " lowercase " +
             shell_quote(tmp_->file("corpus.txt")));
    tokenizer_ = std::make_unique<tokenizer::Tokenizer>(tokenizer::load_tokenizer(tmp_->file("hf/tokenizer.json")));

    pairs_ = read_labeled_data(tmp_->file("dev.tsv"), rte_fields(), true);
    // Hand-made cases: empty sides, special tokens typed in the text, one very uneven pair.
    const std::pair<const char*, const char*> edge[] = {
        {"", ""},
        {"Only the first side has words.", ""},
        {"", "Only the second side has words in it."},
        {"[CLS] typed [SEP] tokens [MASK] count as tokens", "[SEP]"},
        {"Short.",
         "A much longer second sentence that goes on and on, with commas, numbers like 1,234.5 "
         "and punctuation; it should absorb the whole cut before the first one loses anything."}};
    for (const auto& [a, b] : edge) {
      Example e;
      e.text = a;
      e.text_pair = b;
      pairs_.push_back(e);
    }
  }
  static void TearDownTestSuite() {
    tokenizer_.reset();
    tmp_.reset();
    pairs_.clear();
  }

  void SetUp() override {
    BERTPT_REQUIRE_PEER();
    if (!tmp_) BERTPT_SKIP_UNLESS_CI("no RTE data in " + rte_dir());
    ASSERT_GT(pairs_.size(), 100u);
    for (const Example& e : pairs_) {
      // peer.py reads one example per line, the two sides split at the tab.
      ASSERT_EQ((e.text + e.text_pair).find_first_of("\t\n\r"), std::string::npos) << "line " << e.line;
    }
  }

  // HF's lines for the examples: "ids<TAB>type ids" for pairs, "ids" for singles.
  static std::vector<std::string> hf_lines(bool pairs, size_t max_len) {
    std::string input;
    for (const Example& e : pairs_) input += pairs ? e.text + "\t" + e.text_pair + "\n" : e.text + "\n";
    const std::string file = tmp_->file("input.txt");
    testing::write_file(file, input);
    std::string args = std::string("peer.py ") + (pairs ? "encode-pairs " : "encode ") +
                       shell_quote(tmp_->file("hf/tokenizer.json")) + " " + shell_quote(file);
    if (max_len) args += " --max-length " + std::to_string(max_len);
    return lines_of(run_peer(args));
  }

  // Compares every example at `max_len` (0: no truncation) and returns how many were truncated.
  static size_t compare(bool pairs, size_t max_len) {
    const std::vector<std::string> hf = hf_lines(pairs, max_len);
    EXPECT_EQ(hf.size(), pairs_.size());
    if (hf.size() != pairs_.size()) return 0;
    const size_t budget = max_len ? max_len : size_t(1) << 30;
    size_t bad = 0, truncated = 0;
    EncodedExample out;
    std::vector<uint32_t> full;
    for (size_t i = 0; i < pairs_.size(); ++i) {
      const Example& e = pairs_[i];
      encode_example(*tokenizer_, e.text, e.text_pair, pairs, budget, out);
      const std::string ours = pairs ? joined(out.ids) + "\t" + joined(out.type_ids) : joined(out.ids);
      if (ours != hf[i] && ++bad <= 3) {
        ADD_FAILURE() << "max " << max_len << ", example " << i << " (line " << e.line << "): " << e.text << " | "
                      << e.text_pair << "\n  bertpt: " << ours << "\n  HF:     " << hf[i];
      }
      if (!pairs) {
        EXPECT_EQ(out.type_ids, std::vector<uint32_t>(out.ids.size(), 0));
      }
      // `truncated` says whether the untruncated encoding was longer.
      full.clear();
      if (pairs) {
        tokenizer_->encode_pair(e.text, e.text_pair, full, nullptr);
      } else {
        tokenizer_->encode(e.text, full);
      }
      EXPECT_EQ(out.truncated, full.size() > budget) << "example " << i;
      truncated += out.truncated;
    }
    EXPECT_EQ(bad, 0u) << "of " << pairs_.size() << " examples at max length " << max_len;
    return truncated;
  }

  static std::unique_ptr<TempDir> tmp_;
  static std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  static std::vector<Example> pairs_;
};
std::unique_ptr<TempDir> PeerEncodeExample::tmp_;
std::unique_ptr<tokenizer::Tokenizer> PeerEncodeExample::tokenizer_;
std::vector<Example> PeerEncodeExample::pairs_;

TEST_F(PeerEncodeExample, PairsTruncatedLikeHf) {
  EXPECT_EQ(compare(true, 0), 0u);
  // 3 leaves no room for text at all; 33 is odd so the halves differ.
  for (size_t max_len : {3, 8, 16, 33, 128}) {
    const size_t truncated = compare(true, max_len);
    EXPECT_GT(truncated, 0u) << "max " << max_len << " cut nothing: the test would prove little";
  }
}

TEST_F(PeerEncodeExample, SinglesTruncatedLikeHf) {
  EXPECT_EQ(compare(false, 0), 0u);
  for (size_t max_len : {2, 8, 16, 33, 128}) {
    const size_t truncated = compare(false, max_len);
    EXPECT_GT(truncated, 0u) << "max " << max_len << " cut nothing: the test would prove little";
  }
}

}  // namespace
}  // namespace bertpt::classify
