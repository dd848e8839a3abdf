#include "text/corpus_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::slurp;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

struct Row {
  std::string text, source;
};

std::vector<Row> rows_of(const std::string& jsonl) {
  std::vector<Row> rows;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    rows.push_back({j["text"].get<std::string>(), j["source"].get<std::string>()});
  }
  return rows;
}

std::vector<std::string> texts(const std::vector<Row>& rows) {
  std::vector<std::string> t;
  for (const auto& r : rows) t.push_back(r.text);
  return t;
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string a, b;
    for (int i = 0; i < 300; ++i) a += "wiki document " + std::to_string(i) + " \"quoted\"\\tab\t\n";
    for (int i = 0; i < 100; ++i) b += "book paragraph " + std::to_string(i) + "\n";
    b += "wiki document 7 \"quoted\"\\tab\t\n";  // a duplicate across sources
    write_file(dir.file("wiki.txt"), a);
    write_file(dir.file("books.txt.gz"), compress(b, "gzip"));
  }
  MergeOptions options(const std::string& out) {
    MergeOptions o;
    o.corpus.inputs = {dir.file("wiki.txt"), dir.file("books.txt.gz")};
    o.out = dir.file(out);
    return o;
  }
  TempDir dir;
};

TEST_F(MergeTest, ConcatenatesInOrderWithSourceNames) {
  auto r = merge_corpus(options("m.jsonl"));
  auto rows = rows_of(slurp(dir.file("m.jsonl")));
  ASSERT_EQ(rows.size(), 401u);
  EXPECT_EQ(r.written, 401u);
  EXPECT_EQ(rows[0].text, "wiki document 0 \"quoted\"\\tab\t");
  EXPECT_EQ(rows[0].source, dir.file("wiki.txt"));
  EXPECT_EQ(rows[300].text, "book paragraph 0");
  EXPECT_EQ(rows[300].source, dir.file("books.txt.gz"));
  EXPECT_EQ(r.written_per_source, (std::vector<uint64_t>{300, 101}));
}

TEST_F(MergeTest, DedupDropsExactDuplicatesAndCountsThem) {
  auto o = options("d.jsonl");
  o.dedup = true;
  auto r = merge_corpus(o);
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(rows_of(slurp(o.out)).size(), 400u);
}

TEST_F(MergeTest, ShuffleIsDeterministicPerSeedAndAPermutation) {
  auto o1 = options("s1.jsonl");
  o1.shuffle = true;
  o1.seed = 42;
  o1.shuffle_memory_bytes = 1024;  // force many buckets: exercises the external path
  auto r1 = merge_corpus(o1);
  EXPECT_GT(r1.buckets, 1u);
  auto o2 = o1;
  o2.out = dir.file("s2.jsonl.zst");
  o2.shuffle_memory_bytes = size_t(1) << 30;  // one bucket: the order must not depend on it
  merge_corpus(o2);
  auto o3 = o1;
  o3.out = dir.file("s3.jsonl");
  o3.seed = 43;
  merge_corpus(o3);
  auto plain = options("p.jsonl");
  merge_corpus(plain);

  std::string s1 = slurp(o1.out);
  // Same seed -> same bytes, whatever the bucket count and the output compression.
  CorpusOptions read_back;
  read_back.inputs = {o2.out};
  CorpusReader rr(read_back);
  std::string s2;
  Document d;
  std::vector<std::string> t2;
  while (rr.next(d)) t2.emplace_back(d.text);
  auto t1 = texts(rows_of(s1));
  EXPECT_EQ(t1, t2);
  EXPECT_EQ(slurp(o1.out), s1);

  auto t3 = texts(rows_of(slurp(o3.out)));
  auto tp = texts(rows_of(slurp(plain.out)));
  EXPECT_NE(t1, t3) << "different seeds gave the same order";
  EXPECT_NE(t1, tp) << "shuffle kept the input order";
  std::sort(t1.begin(), t1.end());
  std::sort(tp.begin(), tp.end());
  EXPECT_EQ(t1, tp) << "shuffle lost or invented documents";
}

TEST_F(MergeTest, MaxDocsAndWeightsMixSources) {
  auto o = options("w.jsonl");
  o.max_docs = {50, 0};
  o.weight = {1.0, 2.0};
  auto r = merge_corpus(o);
  EXPECT_EQ(r.written_per_source, (std::vector<uint64_t>{50, 202}));
  auto o2 = options("h.jsonl");
  o2.weight = {0.5, 0.0};
  auto r2 = merge_corpus(o2);
  EXPECT_EQ(r2.written_per_source[1], 0u);
  EXPECT_GT(r2.written_per_source[0], 110u);
  EXPECT_LT(r2.written_per_source[0], 190u);
  // Fractional weights are deterministic too.
  auto o3 = o2;
  o3.out = dir.file("h2.jsonl");
  merge_corpus(o3);
  EXPECT_EQ(slurp(o2.out), slurp(o3.out));
}

TEST_F(MergeTest, FailedMergeLeavesNoOutput) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "some document " + std::to_string(i) + "\n";
  std::string c = compress(text, "zstd");
  write_file(dir.file("broken.zst"), c.substr(0, c.size() / 2));
  for (bool shuffle : {false, true}) {
    auto o = options("fail.jsonl");
    o.corpus.inputs.push_back(dir.file("broken.zst"));
    o.shuffle = shuffle;
    EXPECT_THROW(merge_corpus(o), BadInput);
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
      EXPECT_EQ(e.path().filename().string().find("fail.jsonl"), std::string::npos)
          << "left behind: " << e.path() << " (shuffle=" << shuffle << ")";
    }
  }
}

TEST_F(MergeTest, BadPerSourceOptions) {
  auto o = options("x.jsonl");
  o.weight = {1, 1, 1};
  EXPECT_THROW(merge_corpus(o), BadInput);
  o.weight = {-1};
  EXPECT_THROW(merge_corpus(o), BadInput);
  auto o2 = options("y.jsonl");
  o2.out = dir.file("no/such/dir/y.jsonl");
  EXPECT_THROW(merge_corpus(o2), BadInput);
}

TEST(JsonString, EscapesControlCharacters) {
  std::string out;
  append_json_string(out, std::string("a\"b\\c\n\x01\x1f é", 11));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\\u001f é\"");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), std::string("a\"b\\c\n\x01\x1f é", 11));
}

}  // namespace
}  // namespace bertpt::text
