// Shard headers from hostile files: sizes whose product overflows 64 bits, counts that cannot be,
// ids of another width than the manifest's — refused on open with one line naming the file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "common/test_util.h"
#include "data/dataset.h"
#include "data/prepare.h"
#include "data/shard.h"
#include "data_test_util.h"
#include "io/manifest.h"

namespace bertpt::data {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

// A 64-byte shard header (no ids) with the given fields.
std::string header(uint64_t rows, uint32_t seq_len, uint32_t bytes_per_id, uint64_t real_tokens = 0) {
  std::string h(kShardHeaderBytes, '\0');
  std::memcpy(h.data(), kShardMagic, 8);
  auto put = [&](size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) h[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
  };
  put(8, kShardVersion, 4);
  put(12, bytes_per_id, 4);
  put(16, seq_len, 4);
  put(24, rows, 8);
  put(32, real_tokens, 8);
  return h;
}

TEST(ShardHeader, RowCountsWhoseSizeOverflowsAreRefusedNamingTheFile) {
  TempDir d;
  // 2^57 rows x 128 ids x 2 bytes = 2^65 bytes: 64 + 2^65 wraps around to 64, the size of this file.
  const std::string path = d.file("train-00000.bin");
  write_file(path, header(uint64_t(1) << 57, 128, 2));
  const std::string e = error_of([&] { ShardReader r(path); });
  EXPECT_EQ(e.rfind("shard " + path + ": the header claims 144115188075855872 rows of 128 ids", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  // The same with 4-byte ids, and a product that wraps to exactly 2^64 - 64 + 64.
  write_file(path, header(uint64_t(1) << 58, 16, 4));
  EXPECT_THROW(ShardReader r(path), BadInput);
  write_file(path, header(~uint64_t(0), 1, 2));
  EXPECT_THROW(ShardReader r(path), BadInput);
}

TEST(ShardHeader, MoreRealTokensThanIdsIsRefused) {
  TempDir d;
  const std::string path = d.file("s.bin");
  write_file(path, header(1, 8, 2, 9) + std::string(16, '\0'));
  EXPECT_EQ(error_of([&] { ShardReader r(path); }),
            "shard " + path + ": the header counts 9 real tokens in 1 rows of 8");
  write_file(path, header(1, 8, 2, 8) + std::string(16, '\0'));
  EXPECT_NO_THROW(ShardReader r(path));
}

TEST(ShardHeader, SequenceLengthBeyondAnyBertptWritesIsRefused) {
  TempDir d;
  const std::string path = d.file("s.bin");
  // No rows, so the size check passes; a reader would still size its row buffer by seq_len.
  write_file(path, header(0, 0x2200000a, 4));
  EXPECT_EQ(error_of([&] { ShardReader r(path); }),
            "shard " + path + ": seq_len 570425354 exceeds the longest bertpt writes (65536)");
  write_file(path, header(0, kMaxShardSeqLen, 4));
  EXPECT_NO_THROW(ShardReader r(path));
}

TEST(ShardHeader, NotARegularFileIsRefusedWithoutBlocking) {
  TempDir d;
  const std::string path = d.file("fifo.bin");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { ShardReader r(path); }), "shard " + path + " is not a regular file");
}

class DatasetHeaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text;
    for (const auto& doc : testing::sample_documents(200)) text += doc + "\n";
    write_file(dir.file("corpus.txt"), text);
    PrepareOptions o;
    o.corpus.inputs = {dir.file("corpus.txt")};
    o.tokenizer = testing::write_test_tokenizer(dir);
    o.out = data = dir.file("data");
    o.seq_len = 128;
    o.threads = 1;
    o.valid_fraction = 0;
    prepare_dataset(o);
    shard = data + "/" + io::read_manifest(data).train.shards.at(0).file;
  }
  TempDir dir;
  std::string data, shard;
};

// A damaged dataset whose manifest agrees with the lying header: the shard's size check must catch it.
TEST_F(DatasetHeaderTest, ManifestAndHeaderClaimingTwoToThe57RowsAreRefused) {
  nlohmann::json m = io::read_manifest(data).raw;
  m["splits"]["train"]["shards"][0]["rows"] = uint64_t(1) << 57;
  write_file(io::manifest_path(data), m.dump());
  write_file(shard, header(uint64_t(1) << 57, 128, 2));
  const std::string e = error_of([&] { Dataset ds(data, "train"); });
  EXPECT_NE(e.find("shard " + shard + ": the header claims"), std::string::npos) << e;
}

TEST_F(DatasetHeaderTest, IdWidthOtherThanTheManifestsIsRefused) {
  const std::string bytes = slurp(shard);
  std::string wide = header(0, 128, 4);
  write_file(shard, wide);
  nlohmann::json m = io::read_manifest(data).raw;
  m["splits"]["train"]["shards"][0]["rows"] = 0;
  write_file(io::manifest_path(data), m.dump());
  EXPECT_EQ(error_of([&] { Dataset ds(data, "train"); }),
            "shard " + shard + " holds 4-byte ids but the manifest says uint16");
  (void)bytes;
}

TEST_F(DatasetHeaderTest, ShardFileNamesOutsideTheDatasetAreRefused) {
  nlohmann::json m = io::read_manifest(data).raw;
  m["splits"]["train"]["shards"][0]["file"] = "../../etc/passwd";
  write_file(io::manifest_path(data), m.dump());
  EXPECT_EQ(error_of([&] { Dataset ds(data, "train"); }),
            io::manifest_path(data) +
                ": field \"splits.train.shards[0].file\" is \"../../etc/passwd\", expected the name of a file in the "
                "dataset directory");
}

}  // namespace
}  // namespace bertpt::data
