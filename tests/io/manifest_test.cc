#include "io/manifest.h"

#include <gtest/gtest.h>

#include <functional>

#include "common/error.h"
#include "common/test_util.h"
#include "data/data_test_util.h"
#include "data/prepare.h"

namespace bertpt::io {
namespace {

using testing::slurp;
using testing::TempDir;
using testing::write_file;

// A manifest with every field set to a value that differs from its default.
Manifest sample_manifest() {
  Manifest m;
  m.bertpt_version = "0.1.0";
  m.tokenizer = {"/data/tok", "tokenizer", std::string(64, 'a')};
  m.seq_len = 128;
  m.vocab_size = 30522;
  m.dtype = "uint16";
  m.packing = "document";
  m.keep_remainder = true;
  m.valid_fraction = 0.005;
  m.special_ids = {0, 100, 101, 102, -1};  // no [MASK]
  m.train = {10, 7, 800, 812, 12, 96, 4, {{"train-00000.bin", 5, std::string(64, 'b')}, {"train-00001.bin", 2, "c"}}};
  m.valid = {1, 1, 100, 100, 0, 28, 0, {{"valid-00000.bin", 1, "d"}}};
  m.sources = {{"a.txt", 6, 500, 4000, 1, 2}, {"b.jsonl.gz", 5, 412, 3000, 0, 0}};
  m.config = {{"seq_len", 128}, {"inputs", {"a.txt", "b.jsonl.gz"}}, {"tokenizer_vocab_sha256", std::string(64, 'a')}};
  return m;
}

void expect_same_split(const ManifestSplit& a, const ManifestSplit& b) {
  EXPECT_EQ(a.documents, b.documents);
  EXPECT_EQ(a.sequences, b.sequences);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.input_tokens, b.input_tokens);
  EXPECT_EQ(a.dropped_tokens, b.dropped_tokens);
  EXPECT_EQ(a.pad_tokens, b.pad_tokens);
  EXPECT_EQ(a.added_special_tokens, b.added_special_tokens);
  ASSERT_EQ(a.shards.size(), b.shards.size());
  for (size_t i = 0; i < a.shards.size(); ++i) {
    EXPECT_EQ(a.shards[i].file, b.shards[i].file);
    EXPECT_EQ(a.shards[i].rows, b.shards[i].rows);
    EXPECT_EQ(a.shards[i].sha256, b.shards[i].sha256);
  }
}

TEST(Manifest, RoundTripKeepsEveryField) {
  TempDir dir;
  const Manifest m = sample_manifest();
  write_manifest(dir.path(), m);
  const Manifest back = read_manifest(dir.path());
  EXPECT_EQ(back.format, "bertpt-dataset");
  EXPECT_EQ(back.format_version, 1);
  EXPECT_EQ(back.bertpt_version, m.bertpt_version);
  EXPECT_EQ(back.tokenizer.path, m.tokenizer.path);
  EXPECT_EQ(back.tokenizer.copy, m.tokenizer.copy);
  EXPECT_EQ(back.tokenizer.vocab_sha256, m.tokenizer.vocab_sha256);
  EXPECT_EQ(back.seq_len, m.seq_len);
  EXPECT_EQ(back.vocab_size, m.vocab_size);
  EXPECT_EQ(back.dtype, m.dtype);
  EXPECT_EQ(back.packing, m.packing);
  EXPECT_EQ(back.keep_remainder, m.keep_remainder);
  EXPECT_EQ(back.valid_fraction, m.valid_fraction);
  EXPECT_EQ(back.special_ids.pad, 0);
  EXPECT_EQ(back.special_ids.unk, 100);
  EXPECT_EQ(back.special_ids.cls, 101);
  EXPECT_EQ(back.special_ids.sep, 102);
  EXPECT_EQ(back.special_ids.mask, -1);
  expect_same_split(back.train, m.train);
  expect_same_split(back.valid, m.valid);
  ASSERT_EQ(back.sources.size(), 2u);
  EXPECT_EQ(back.sources[1].name, "b.jsonl.gz");
  EXPECT_EQ(back.sources[0].documents, 6u);
  EXPECT_EQ(back.sources[0].tokens, 500u);
  EXPECT_EQ(back.sources[0].bytes, 4000u);
  EXPECT_EQ(back.sources[0].invalid_utf8_repaired, 1u);
  EXPECT_EQ(back.sources[0].empty_skipped, 2u);
  EXPECT_EQ(back.config, m.config);
  // The file is the JSON indented by 2 with a final newline; raw is that JSON as read.
  EXPECT_EQ(slurp(manifest_path(dir.path())), m.to_json().dump(2) + "\n");
  EXPECT_EQ(back.raw, m.to_json());
  EXPECT_EQ(back.to_json(), m.to_json());
}

TEST(Manifest, FindSplitKnowsTrainAndValidOnly) {
  const Manifest m = sample_manifest();
  EXPECT_EQ(m.find_split("train"), &m.train);
  EXPECT_EQ(m.find_split("valid"), &m.valid);
  EXPECT_EQ(m.find_split("test"), nullptr);
}

TEST(Manifest, SourcesAreOptionalAndNotWrittenWhenEmpty) {
  Manifest m = sample_manifest();
  m.sources.clear();
  EXPECT_FALSE(m.to_json().contains("sources"));
  EXPECT_TRUE(Manifest::from_json(m.to_json(), "m.json").sources.empty());
}

TEST(Manifest, KeysTheStructDoesNotModelStayInRaw) {
  nlohmann::json j = sample_manifest().to_json();
  j["notes"] = "added by hand";
  EXPECT_EQ(Manifest::from_json(j, "m.json").raw["notes"], "added by hand");
}

// What prepare writes, read and written again, is the same file byte for byte.
TEST(Manifest, ReadThenWriteReproducesWhatPrepareWrote) {
  TempDir dir;
  std::string corpus = dir.file("corpus.txt");
  std::string text;
  for (const auto& d : testing::sample_documents(200)) text += d + "\n";
  write_file(corpus, text);
  data::PrepareOptions o;
  o.corpus.inputs = {corpus};
  o.tokenizer = testing::write_test_tokenizer(dir);
  o.out = dir.file("data");
  o.seq_len = 32;
  o.shard_rows = 40;
  o.valid_fraction = 0.1;
  o.threads = 2;
  data::prepare_dataset(o);
  const Manifest m = read_manifest(o.out);
  EXPECT_EQ(m.seq_len, 32u);
  EXPECT_GT(m.train.shards.size(), 1u);
  write_manifest(dir.path(), m);
  EXPECT_EQ(slurp(dir.file("manifest.json")), slurp(o.out + "/manifest.json"));
}

// The BadInput `f` throws; fails the test when it throws none.
BadInput bad_input_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const BadInput& e) {
    return e;
  }
  ADD_FAILURE() << "no BadInput thrown";
  return BadInput("(no error)");
}

BadInput read_error(const nlohmann::json& j) {
  TempDir dir;
  write_file(manifest_path(dir.path()), j.dump(2));
  return bad_input_of([&] { read_manifest(dir.path()); });
}

TEST(Manifest, MissingFieldIsNamedWithItsPath) {
  nlohmann::json j = sample_manifest().to_json();
  j.erase("seq_len");
  BadInput e = read_error(j);
  EXPECT_NE(std::string(e.what()).find("manifest.json: field \"seq_len\" is missing"), std::string::npos) << e.what();
  EXPECT_NE(e.hint().find("bertpt prepare"), std::string::npos) << e.hint();

  j = sample_manifest().to_json();
  j["splits"]["train"]["shards"][1].erase("rows");
  e = read_error(j);
  EXPECT_NE(std::string(e.what()).find("field \"splits.train.shards[1].rows\" is missing"), std::string::npos)
      << e.what();

  j = sample_manifest().to_json();
  j["splits"].erase("valid");
  EXPECT_NE(std::string(read_error(j).what()).find("field \"splits.valid\" is missing"), std::string::npos);

  j = sample_manifest().to_json();
  j["special_ids"].erase("mask");
  EXPECT_NE(std::string(read_error(j).what()).find("field \"special_ids.mask\" is missing"), std::string::npos);
}

TEST(Manifest, WrongTypeIsNamedWithWhatWasExpected) {
  nlohmann::json j = sample_manifest().to_json();
  j["vocab_size"] = "30522";
  BadInput e = read_error(j);
  EXPECT_NE(std::string(e.what()).find("field \"vocab_size\" is a string, expected an unsigned integer"),
            std::string::npos)
      << e.what();
  EXPECT_FALSE(e.hint().empty());

  j = sample_manifest().to_json();
  j["splits"]["valid"]["documents"] = -3;
  EXPECT_NE(std::string(read_error(j).what()).find("field \"splits.valid.documents\" is -3"), std::string::npos);

  j = sample_manifest().to_json();
  j["tokenizer"] = "tok";
  EXPECT_NE(std::string(read_error(j).what()).find("field \"tokenizer\" is a string, expected an object"),
            std::string::npos);

  j = sample_manifest().to_json();
  j["keep_remainder"] = 1;
  EXPECT_NE(std::string(read_error(j).what()).find("field \"keep_remainder\" is an integer, expected a boolean"),
            std::string::npos);

  j = sample_manifest().to_json();
  j["seq_len"] = uint64_t(1) << 33;
  EXPECT_NE(std::string(read_error(j).what()).find("field \"seq_len\" is 8589934592, out of range"), std::string::npos);

  EXPECT_NE(std::string(read_error(nlohmann::json::array()).what()).find("the top level is an array"),
            std::string::npos);
}

TEST(Manifest, OtherFormatsAndVersionsAreRefused) {
  nlohmann::json j = sample_manifest().to_json();
  j["format_version"] = 2;
  // The version is reported even when the rest of the file has another shape.
  j.erase("splits");
  BadInput e = read_error(j);
  EXPECT_NE(std::string(e.what()).find("format_version 2, this bertpt reads version 1"), std::string::npos) << e.what();

  j = sample_manifest().to_json();
  j["format"] = "something-else";
  EXPECT_NE(std::string(read_error(j).what()).find("field \"format\" is not \"bertpt-dataset\""), std::string::npos);

  j = sample_manifest().to_json();
  j["format_version"] = "1";
  EXPECT_NE(std::string(read_error(j).what()).find("field \"format_version\" is a string, expected an integer"),
            std::string::npos);
}

TEST(Manifest, MissingOrUnparsableFileIsBadInput) {
  TempDir dir;
  BadInput e = bad_input_of([&] { read_manifest(dir.path()); });
  EXPECT_NE(std::string(e.what()).find("does not exist: not a bertpt dataset"), std::string::npos) << e.what();
  EXPECT_EQ(e.hint(), "create one with bertpt prepare");

  write_file(dir.file("progress.json"), "{}");
  e = bad_input_of([&] { read_manifest(dir.path()); });
  EXPECT_NE(std::string(e.what()).find("the dataset is incomplete"), std::string::npos) << e.what();
  EXPECT_EQ(e.hint(), "finish it with bertpt prepare --resume");

  write_file(manifest_path(dir.path()), "{\"format\": ");
  e = bad_input_of([&] { read_manifest(dir.path()); });
  EXPECT_NE(std::string(e.what()).find("manifest.json: not valid JSON"), std::string::npos) << e.what();
}

TEST(Manifest, ShardListsRoundTripAndNameTheirField) {
  std::vector<ManifestShard> shards = {{"train-00000.bin", 3, "x"}, {"train-00001.bin", 1, "y"}};
  nlohmann::json j = shards_to_json(shards);
  EXPECT_EQ(j.dump(), R"([{"file":"train-00000.bin","rows":3,"sha256":"x"},)"
                      R"({"file":"train-00001.bin","rows":1,"sha256":"y"}])");
  auto back = shards_from_json(j, "progress.json", "splits.train.shards");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].file, "train-00001.bin");
  EXPECT_EQ(back[1].rows, 1u);
  EXPECT_EQ(back[1].sha256, "y");
  j[0]["sha256"] = 5;
  EXPECT_EQ(testing::error_of([&] { shards_from_json(j, "progress.json", "splits.train.shards"); }),
            "progress.json: field \"splits.train.shards[0].sha256\" is an integer, expected a string");
}

}  // namespace
}  // namespace bertpt::io
