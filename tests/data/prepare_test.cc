#include "data/prepare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "../tokenizer/peer.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/sha256.h"
#include "data/dataset.h"
#include "data/phase_schedule.h"
#include "data/shard.h"
#include "data/verify.h"
#include "data_test_util.h"
#include "io/manifest.h"
#include "tokenizer/hf_files.h"

namespace bertpt::data {
namespace {

namespace fs = std::filesystem;
using testing::compress;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

class PrepareTest : public testing::PrepareFixture {
 protected:
  // The encoded documents of each split, computed independently of prepare.
  std::vector<std::vector<uint32_t>> encoded(bool valid, uint64_t seed = 0) {
    auto tok = tokenizer::load_tokenizer(tok_dir);
    std::vector<std::vector<uint32_t>> out;
    for (const auto& d : docs) {
      bool is_valid = double(hash64(d, 0x53504c4954000001ull ^ seed)) < 0.05 * 0x1.0p64;
      if (is_valid != valid) continue;
      out.emplace_back();
      tok.encode(d, out.back(), true);
    }
    return out;
  }
  std::vector<std::vector<uint32_t>> rows_of(const std::string& data, const std::string& split) {
    Dataset ds(data, split);
    std::vector<std::vector<uint32_t>> rows(ds.size(), std::vector<uint32_t>(ds.seq_len()));
    for (uint64_t i = 0; i < ds.size(); ++i) ds.get(i, rows[i].data());
    return rows;
  }
  std::string shard_bytes(const std::string& data) {
    std::string all;
    for (const auto& e : std::set<fs::path>(fs::directory_iterator(data), {})) {
      if (e.extension() == ".bin") all += e.filename().string() + slurp(e.string());
    }
    return all;
  }
};

TEST_F(PrepareTest, ConcatRowsAreTheIndependentlyEncodedStreamCutInBlocks) {
  auto r = prepare_dataset(options("d"));
  for (bool valid : {false, true}) {
    std::vector<uint32_t> stream;
    for (const auto& e : encoded(valid)) stream.insert(stream.end(), e.begin(), e.end());
    auto rows = rows_of(dir.file("d"), valid ? "valid" : "train");
    ASSERT_EQ(rows.size(), stream.size() / 32) << (valid ? "valid" : "train");
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(rows[i], std::vector<uint32_t>(stream.begin() + long(32 * i), stream.begin() + long(32 * i + 32)));
    }
    const io::ManifestSplit& split = valid ? r.manifest.valid : r.manifest.train;
    EXPECT_EQ(split.input_tokens, stream.size());
    EXPECT_EQ(split.tokens + split.dropped_tokens, stream.size());
    EXPECT_LT(split.dropped_tokens, 32u);
  }
  EXPECT_GT(r.manifest.valid.documents, 10u);
  EXPECT_GT(r.manifest.train.shards.size(), 2u);
  ASSERT_EQ(r.manifest.sources.size(), 1u);
  EXPECT_EQ(r.manifest.sources[0].documents, docs.size());
  EXPECT_EQ(r.manifest.dtype, "uint16");
  EXPECT_FALSE(fs::exists(dir.file("d/progress.json")));
  EXPECT_TRUE(fs::exists(dir.file("d/tokenizer/tokenizer.json")));
  // Checksums in the manifest match the files.
  for (const io::ManifestShard& s : r.manifest.train.shards) {
    EXPECT_EQ(s.sha256, sha256_file(dir.file("d/" + s.file)));
  }
}

TEST_F(PrepareTest, GuideModeMatchesAnIndependentGrouping) {
  auto o = options("g");
  o.packing = Packing::Guide;
  o.valid_fraction = 0;
  prepare_dataset(o);
  // Reference: truncate each encoded document to 32 ([CLS] + 30 + [SEP]), group by 1000 documents
  // (here all 600 fit in one group), concatenate, cut, drop the group's remainder.
  std::vector<uint32_t> stream;
  auto tok = tokenizer::load_tokenizer(tok_dir);
  for (const auto& d : docs) {
    std::vector<uint32_t> ids;
    tok.encode(d, ids, true);
    if (ids.size() > 32) {
      ids.resize(31);
      ids.push_back(uint32_t(tok.special_ids().sep));
    }
    stream.insert(stream.end(), ids.begin(), ids.end());
  }
  auto rows = rows_of(dir.file("g"), "train");
  ASSERT_EQ(rows.size(), stream.size() / 32);
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i], std::vector<uint32_t>(stream.begin() + long(32 * i), stream.begin() + long(32 * i + 32)));
  }
}

TEST_F(PrepareTest, OutputIsIdenticalForEveryThreadCount) {
  auto a = options("t1");
  a.threads = 1;
  auto b = options("t3");
  b.threads = 3;
  prepare_dataset(a);
  prepare_dataset(b);
  EXPECT_EQ(shard_bytes(a.out), shard_bytes(b.out));
  EXPECT_FALSE(shard_bytes(a.out).empty());
}

TEST_F(PrepareTest, ValidationDocumentsNeverAppearInTrain) {
  auto r = prepare_dataset(options("v"));
  uint64_t train_docs = r.manifest.train.documents, valid_docs = r.manifest.valid.documents;
  EXPECT_EQ(train_docs + valid_docs, docs.size());
  EXPECT_EQ(valid_docs, encoded(true).size());
}

TEST_F(PrepareTest, ResumeAfterABrokenInputContinuesExactly) {
  // A clean run for reference, on a corpus large enough to stream in several chunks.
  std::string text;
  for (int copy = 0; copy < 40; ++copy) text += slurp(corpus);
  write_file(dir.file("c.gz"), compress(text, "gzip"));
  auto clean = options("clean");
  clean.corpus.inputs = {dir.file("c.gz")};
  prepare_dataset(clean);

  // The same input, cut short: the run fails after checkpointing some shards.
  std::string gz = compress(text, "gzip");
  write_file(dir.file("c.gz"), gz.substr(0, gz.size() * 2 / 3));
  auto o = options("resumed");
  o.corpus.inputs = {dir.file("c.gz")};
  EXPECT_THROW(prepare_dataset(o), BadInput);
  ASSERT_TRUE(fs::exists(o.out + "/progress.json")) << "no checkpoint was written before the failure";
  EXPECT_FALSE(fs::exists(o.out + "/manifest.json"));
  EXPECT_THROW(Dataset(o.out, "train"), BadInput);

  // Without --resume the interrupted directory is refused.
  EXPECT_THROW(prepare_dataset(o), BadInput);

  // The file is repaired; --resume finishes the job and matches the clean run byte for byte.
  write_file(dir.file("c.gz"), compress(text, "gzip"));
  o.resume = true;
  auto r = prepare_dataset(o);
  EXPECT_GT(r.resumed_from_documents, 0u);
  EXPECT_EQ(shard_bytes(o.out), shard_bytes(clean.out));
  auto m1 = io::read_manifest(o.out), m2 = io::read_manifest(clean.out);
  EXPECT_EQ(m1.raw["splits"], m2.raw["splits"]);
}

// Every file under `root` (recursively), by its path relative to `root`, with its bytes.
std::map<std::string, std::string> files_of(const std::string& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().filename() != ".bertpt.lock") {
      files[fs::relative(e.path(), root).string()] = slurp(e.path().string());
    }
  }
  return files;
}

TEST_F(PrepareTest, SeveralLengthsInOnePassAreOnePrepareEach) {
  auto both = options("both");
  both.shard_rows = 0;  // resolved per length: about 64 MiB of each
  const auto results = prepare_lengths(both, {64, 32});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].manifest.seq_len, 64u);
  EXPECT_EQ(results[1].manifest.seq_len, 32u);
  for (uint32_t len : {32u, 64u}) {
    auto one = options("one-" + std::to_string(len));
    one.shard_rows = 0;
    one.seq_len = len;
    prepare_dataset(one);
    const auto expected = files_of(one.out), got = files_of(length_dir(both.out, len));
    EXPECT_GT(expected.size(), 5u);  // manifest, shards, tokenizer files
    EXPECT_EQ(got, expected) << "seq-" << len;
  }
  EXPECT_EQ(lengths_in(both.out), (std::vector<uint32_t>{32, 64}));
  // Readers of one dataset (eval, data inspect, data verify) name the lengths a multi-length DATA holds.
  const std::string e = testing::error_of([&] { Dataset(both.out, "train"); });
  EXPECT_NE(e.find("seq-32, seq-64"), std::string::npos) << e;
  EXPECT_NE(testing::error_of([&] { verify_dataset(both.out); }).find("seq-32, seq-64"), std::string::npos);
  // A one-length prepare into the folder of several refuses it without --overwrite.
  EXPECT_NE(testing::error_of([&] { prepare_dataset(both); }).find("already holds a prepared dataset"),
            std::string::npos);
  EXPECT_NE(testing::error_of([&] { prepare_lengths(both, {32, 32}); }).find("twice"), std::string::npos);
}

TEST_F(PrepareTest, SeveralLengthsResumeAfterABrokenInputContinueExactly) {
  std::string text;
  for (int copy = 0; copy < 40; ++copy) text += slurp(corpus);
  const std::string gz = compress(text, "gzip");
  write_file(dir.file("c.gz"), gz);
  auto clean = options("clean");
  clean.corpus.inputs = {dir.file("c.gz")};
  prepare_lengths(clean, {32, 128});

  // Cut short: each length checkpoints at its own shard boundaries, so they stop at different documents.
  write_file(dir.file("c.gz"), gz.substr(0, gz.size() * 2 / 3));
  auto o = options("resumed");
  o.corpus.inputs = {dir.file("c.gz")};
  EXPECT_THROW(prepare_lengths(o, {32, 128}), BadInput);
  ASSERT_TRUE(fs::exists(o.out + "/seq-32/progress.json"));
  ASSERT_TRUE(fs::exists(o.out + "/seq-128/progress.json"));
  EXPECT_TRUE(lengths_in(o.out).empty());  // nothing looks complete

  write_file(dir.file("c.gz"), gz);
  o.resume = true;
  const auto results = prepare_lengths(o, {32, 128});
  EXPECT_GT(results[0].resumed_from_documents, 0u);
  EXPECT_GT(results[1].resumed_from_documents, 0u);
  EXPECT_NE(results[0].resumed_from_documents, results[1].resumed_from_documents);
  for (uint32_t len : {32u, 128u}) {
    EXPECT_EQ(files_of(length_dir(o.out, len)), files_of(length_dir(clean.out, len))) << "seq-" << len;
  }
}

TEST_F(PrepareTest, RefusesToOverwriteWithoutPermission) {
  auto o = options("x");
  prepare_dataset(o);
  EXPECT_THROW(prepare_dataset(o), BadInput);
  o.overwrite = true;
  o.seq_len = 16;
  auto r = prepare_dataset(o);
  EXPECT_EQ(r.manifest.seq_len, 16u);
  EXPECT_EQ(Dataset(o.out, "train").seq_len(), 16u);
}

TEST_F(PrepareTest, BadOptionsAreClearErrors) {
  auto o = options("bad");
  o.seq_len = 4;
  EXPECT_THROW(prepare_dataset(o), BadInput);
  o.seq_len = 1024;
  EXPECT_THROW(prepare_dataset(o), BadInput);
  o = options("bad2");
  o.tokenizer = dir.file("no-such-tokenizer");
  EXPECT_THROW(prepare_dataset(o), BadInput);
}

// The token count equals the sum of Hugging Face's own encodings of the same documents.
TEST_F(PrepareTest, TokenCountMatchesHuggingFace) {
  BERTPT_REQUIRE_PEER();
  auto o = options("hf");
  auto r = prepare_dataset(o);
  // HF encodes every document ([CLS] … [SEP] added), one line of ids per document.
  std::string out = testing::run_peer("peer.py encode " + testing::shell_quote(tok_dir + "/tokenizer.json") + " " +
                                      testing::shell_quote(corpus));
  uint64_t hf_total = 0;
  for (char c : out) hf_total += c == ' ' || c == '\n';  // ids per line = spaces + 1
  const io::Manifest& m = r.manifest;
  uint64_t ours = m.train.tokens + m.train.dropped_tokens + m.valid.tokens + m.valid.dropped_tokens;
  EXPECT_EQ(ours, hf_total);
}

TEST(Shard, ReaderRejectsDamagedFiles) {
  TempDir d;
  ShardWriter w(8, 2, 0);
  uint32_t row[8] = {2, 5, 6, 7, 3, 0, 0, 0};
  w.add_row(row);
  w.add_row(row);
  w.write(d.file("s.bin"));
  ShardReader ok(d.file("s.bin"));
  EXPECT_EQ(ok.rows(), 2u);
  EXPECT_EQ(ok.header().real_tokens, 10u);
  uint32_t back[8];
  ok.read_row(1, back);
  EXPECT_EQ(std::vector<uint32_t>(back, back + 8), std::vector<uint32_t>(row, row + 8));

  std::string bytes = slurp(d.file("s.bin"));
  write_file(d.file("cut.bin"), bytes.substr(0, bytes.size() - 3));
  EXPECT_THROW(ShardReader(d.file("cut.bin")), BadInput);
  std::string magic = bytes;
  magic[0] = 'X';
  write_file(d.file("magic.bin"), magic);
  EXPECT_THROW(ShardReader(d.file("magic.bin")), BadInput);
  write_file(d.file("tiny.bin"), "BPT");
  EXPECT_THROW(ShardReader(d.file("tiny.bin")), BadInput);
}

}  // namespace
}  // namespace bertpt::data
