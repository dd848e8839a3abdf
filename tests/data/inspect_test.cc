#include "data/inspect.h"

#include <gtest/gtest.h>

#include <bit>
#include <map>

#include "common/error.h"
#include "data/prepare.h"
#include "data_test_util.h"
#include "tokenizer/hf_files.h"

namespace bertpt::data {
namespace {

using testing::TempDir;
using testing::write_file;

constexpr uint32_t kSeqLen = 32;

// A small prepared dataset (all documents in train) and, computed without prepare or inspect, the
// stream of ids its concat blocks hold.
class InspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    docs = testing::sample_documents(300);
    // '#' is punctuation (a word of its own) that the test vocabulary lacks: [UNK].
    for (size_t i = 3; i < docs.size(); i += 10) docs[i] += " #tag";
    std::string text;
    for (const auto& d : docs) text += d + "\n";
    write_file(dir.file("corpus.txt"), text);
    tok_dir = testing::write_test_tokenizer(dir);
  }
  PrepareResult prepare(const std::string& out, Packing packing) {
    PrepareOptions o;
    o.corpus.inputs = {dir.file("corpus.txt")};
    o.tokenizer = tok_dir;
    o.out = dir.file(out);
    o.seq_len = kSeqLen;
    o.packing = packing;
    o.valid_fraction = 0;
    o.threads = 2;
    return prepare_dataset(o);
  }
  // Every document encoded ([CLS] … [SEP]) and concatenated, cut to whole blocks.
  std::vector<uint32_t> concat_stream() {
    auto tok = tokenizer::load_tokenizer(tok_dir);
    std::vector<uint32_t> stream;
    for (const auto& d : docs) tok.encode(d, stream, true);
    stream.resize(stream.size() / kSeqLen * kSeqLen);
    return stream;
  }
  TempDir dir;
  std::vector<std::string> docs;
  std::string tok_dir;
};

TEST_F(InspectTest, ConcatStatisticsMatchTheEncodedStream) {
  prepare("d", Packing::Concat);
  const std::vector<uint32_t> stream = concat_stream();
  const tokenizer::SpecialIds sp = tokenizer::load_tokenizer(tok_dir).special_ids();
  // Documents start at [CLS]; lengths are the distances between them (the last cut by the end).
  std::vector<uint64_t> lengths;
  uint64_t unk = 0;
  for (uint32_t id : stream) {
    if (int64_t(id) == sp.cls) lengths.push_back(0);
    ++lengths.back();
    unk += int64_t(id) == sp.unk;
  }
  ASSERT_EQ(unk, 30u);

  const InspectResult r = inspect_dataset(dir.file("d"), {});
  EXPECT_EQ(r.dataset, dir.file("d"));
  EXPECT_EQ(r.split, "train");
  EXPECT_EQ(r.seq_len, kSeqLen);
  EXPECT_EQ(r.sequences, stream.size() / kSeqLen);
  EXPECT_EQ(r.scanned_sequences, r.sequences);
  EXPECT_EQ(r.tokens, stream.size());
  EXPECT_EQ(r.documents_seen, lengths.size());
  EXPECT_DOUBLE_EQ(r.unk_rate, double(unk) / double(stream.size()));
  EXPECT_EQ(r.padding_share, 0.0);

  std::map<uint64_t, uint64_t> by_bucket;  // floor(log2(length)) -> documents
  for (uint64_t n : lengths) ++by_bucket[std::bit_width(n) - 1];
  ASSERT_EQ(r.document_length_histogram.size(), by_bucket.size());
  size_t i = 0;
  for (const auto& [k, count] : by_bucket) {
    const LengthBucket& b = r.document_length_histogram[i++];
    EXPECT_EQ(b.min_tokens, uint64_t(1) << k);
    EXPECT_EQ(b.max_tokens, (uint64_t(2) << k) - 1);
    EXPECT_EQ(b.documents, count) << "bucket " << k;
  }
  EXPECT_TRUE(r.blocks.empty());
  EXPECT_FALSE(r.to_json().contains("blocks"));
}

TEST_F(InspectTest, MaxRowsLimitsTheScan) {
  prepare("d", Packing::Concat);
  InspectOptions o;
  o.max_rows = 5;
  const InspectResult r = inspect_dataset(dir.file("d"), o);
  EXPECT_EQ(r.scanned_sequences, 5u);
  EXPECT_EQ(r.tokens, 5 * kSeqLen);
  EXPECT_GT(r.sequences, 5u);
  o.max_rows = 1u << 30;
  EXPECT_EQ(inspect_dataset(dir.file("d"), o).scanned_sequences, r.sequences);
}

TEST_F(InspectTest, DecodesTheChosenBlocksWithSpecialTokens) {
  prepare("d", Packing::Concat);
  const std::vector<uint32_t> stream = concat_stream();
  InspectOptions o;
  o.indices = {3, 0};
  const InspectResult r = inspect_dataset(dir.file("d"), o);
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_EQ(r.blocks[0].index, 3u);
  EXPECT_EQ(r.blocks[0].ids, std::vector<uint32_t>(stream.begin() + 3 * kSeqLen, stream.begin() + 4 * kSeqLen));
  EXPECT_EQ(r.blocks[1].index, 0u);
  // The first document is "Doc 0: …", lowercased by the tokenizer and opened by [CLS].
  EXPECT_EQ(r.blocks[1].text.rfind("[CLS] doc 0 :", 0), 0u) << r.blocks[1].text;
  const nlohmann::json j = r.to_json();
  ASSERT_EQ(j["blocks"].size(), 2u);
  EXPECT_EQ(j["blocks"][1]["text"], r.blocks[1].text);
  EXPECT_EQ(j["blocks"][0]["ids"].size(), kSeqLen);
}

// In document mode every block holds one document (or a piece of a long one) and padding: the
// counts equal the packer's own, recorded in the manifest.
TEST_F(InspectTest, DocumentModeCountsMatchThePackersStatistics) {
  const PrepareResult p = prepare("doc", Packing::Document);
  const InspectResult r = inspect_dataset(dir.file("doc"), {});
  EXPECT_EQ(r.sequences, p.manifest.train.sequences);
  EXPECT_EQ(r.tokens, p.manifest.train.tokens);
  EXPECT_EQ(r.documents_seen, r.sequences);  // each block starts with its own [CLS]
  EXPECT_GT(p.manifest.train.pad_tokens, 0u);
  EXPECT_DOUBLE_EQ(r.padding_share, double(p.manifest.train.pad_tokens) / double(r.sequences * kSeqLen));
}

TEST_F(InspectTest, BadSplitOrIndexIsBadInput) {
  prepare("d", Packing::Concat);
  InspectOptions o;
  o.split = "test";
  EXPECT_NE(testing::error_of([&] { inspect_dataset(dir.file("d"), o); }).find("no split \"test\""), std::string::npos);
  o = {};
  o.indices = {1u << 30};
  EXPECT_NE(testing::error_of([&] { inspect_dataset(dir.file("d"), o); }).find("--index 1073741824 is out of range"),
            std::string::npos);
  // The valid split exists but is empty (valid_fraction 0): nothing to index.
  o.split = "valid";
  o.indices = {0};
  EXPECT_THROW(inspect_dataset(dir.file("d"), o), BadInput);
  EXPECT_THROW(inspect_dataset(dir.file("missing"), {}), BadInput);
}

}  // namespace
}  // namespace bertpt::data
