// The bertpt CLI as a user meets it: exit codes, one-line errors, --json summaries, help text.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/test_util.h"

namespace bertpt {
namespace {

using testing::compress;
using testing::run_bertpt;
using testing::shell_quote;
using testing::TempDir;
using testing::write_file;

TEST(Cli, VersionNamesLibTorch) {
  auto r = run_bertpt("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("bertpt "), std::string::npos);
  EXPECT_NE(r.out.find("LibTorch"), std::string::npos);
}

TEST(Cli, HelpDocumentsEveryCorpusOption) {
  auto r = run_bertpt("corpus merge --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--input", "--format", "--doc-per", "--text-field", "--skip-bad-lines", "--out", "--shuffle",
                          "--seed", "--dedup", "--max-docs", "--weight", "--json", "--quiet"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
}

TEST(Cli, StatsJsonSummary) {
  TempDir d;
  write_file(d.file("a.txt"), "one\ntwo\n\n");
  write_file(d.file("b.jsonl.gz"), compress("{\"text\":\"three\"}\n", "gzip"));
  auto r = run_bertpt("corpus stats --json -i " + shell_quote(d.file("a.txt")) + " -i " +
                      shell_quote(d.file("b.jsonl.gz")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["total"]["documents"], 3);
  EXPECT_EQ(j["total"]["empty_skipped"], 1);
  EXPECT_EQ(j["sources"].size(), 2u);
  EXPECT_EQ(j["sources"][1]["documents"], 1);
}

TEST(Cli, StatsTableIsHumanReadable) {
  TempDir d;
  write_file(d.file("a.txt"), "one\ntwo\n");
  auto r = run_bertpt("corpus stats -i " + shell_quote(d.file("a.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("documents"), std::string::npos);
  EXPECT_NE(r.out.find(" 2 "), std::string::npos) << r.out;
}

TEST(Cli, MergeWritesAndReportsJson) {
  TempDir d;
  write_file(d.file("a.txt"), "x\ny\nx\n");
  auto r = run_bertpt("corpus merge --dedup --shuffle --seed 3 --json -i " + shell_quote(d.file("a.txt")) + " --out " +
                      shell_quote(d.file("m.jsonl.zst")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["written"], 2);
  EXPECT_EQ(j["duplicates"], 1);
  auto back = run_bertpt("corpus stats --json -i " + shell_quote(d.file("m.jsonl.zst")));
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(nlohmann::json::parse(back.out)["total"]["documents"], 2);
}

TEST(Cli, PerSourceWeightsByName) {
  TempDir d;
  write_file(d.file("a.txt"), "a1\na2\n");
  write_file(d.file("b.txt"), "b1\n");
  std::string a = shell_quote(d.file("a.txt")), b = shell_quote(d.file("b.txt"));
  auto r = run_bertpt("corpus merge --json -i " + a + " -i " + b + " --weight " + shell_quote(d.file("b.txt") + "=3") +
                      " --max-docs 1=1 -o " + shell_quote(d.file("o.jsonl")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["written_per_source"], nlohmann::json({1, 3}));
  auto bad = run_bertpt("corpus merge -i " + a + " --weight nosuch=2 -o " + shell_quote(d.file("o2.jsonl")));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("nosuch"), std::string::npos);
}

// Two values for one source (--encoding SRC=latin1 --encoding SRC=utf-16, by name or by position, or
// two for every source) are refused in one line naming the source and both values, with a hint; the
// same value twice is fine, and SOURCE=VALUE overrides VALUE whatever their order.
TEST(Cli, TwoValuesForOneSourceAreRefused) {
  TempDir d;
  write_file(d.file("a.txt"), "hello\n");
  write_file(d.file("b.txt"), "caf\xE9\n");  // latin1
  const std::string a = shell_quote(d.file("a.txt")), b = shell_quote(d.file("b.txt"));
  const std::string out = " -o " + shell_quote(d.file("o.jsonl"));
  struct Case {
    std::string flags, source, first, second;
  } cases[] = {
      {"--encoding " + shell_quote(d.file("a.txt") + "=latin1") + " --encoding " +
           shell_quote(d.file("a.txt") + "=utf-16"),
       "source 1 (" + d.file("a.txt") + ")", d.file("a.txt") + "=latin1", d.file("a.txt") + "=utf-16"},
      {"--encoding 2=latin1 --encoding " + shell_quote(d.file("b.txt") + "=cp1252"),
       "source 2 (" + d.file("b.txt") + ")", "2=latin1", d.file("b.txt") + "=cp1252"},
      {"--encoding latin1 --encoding utf-16", "every source", "latin1", "utf-16"},
      {"--max-docs 1=1 --max-docs 1=2", "source 1", "1=1", "1=2"},
  };
  for (const auto& c : cases) {
    auto r = run_bertpt("corpus merge -i " + a + " -i " + b + " " + c.flags + out);
    EXPECT_EQ(r.exit_code, 1) << c.flags << "\n" << r.err;
    const std::string line = r.err.substr(0, r.err.find('\n'));
    for (const std::string& needle : {c.source, "'" + c.first + "'", "'" + c.second + "'"}) {
      EXPECT_NE(line.find(needle), std::string::npos) << needle << " not in: " << line;
    }
    EXPECT_NE(r.err.find("\n  hint: give each source one"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  }
  EXPECT_FALSE(std::ifstream(d.file("o.jsonl")).good()) << "a refused merge wrote its output";

  auto same = run_bertpt("corpus merge -q -i " + a + " -i " + b + " --encoding 2=latin1 --encoding " +
                         shell_quote(d.file("b.txt") + "=latin1") + out);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  auto overridden = run_bertpt("corpus merge -q -i " + a + " -i " + b + " --encoding 2=latin1 --encoding utf-8" + out);
  ASSERT_EQ(overridden.exit_code, 0) << overridden.err;
  std::ifstream merged(d.file("o.jsonl"));
  std::string first, second;
  std::getline(merged, first);
  std::getline(merged, second);
  EXPECT_NE(second.find("caf\u00e9"), std::string::npos) << second;
}

// Every kind of bad input: exit 1, one clear line naming the problem, no signal, nothing half-written.
TEST(Cli, BadInputExitsOneWithAClearMessage) {
  TempDir d;
  write_file(d.file("bad.jsonl"), "{\"text\":\"ok\"}\nnot json\n");
  std::string text;
  for (int i = 0; i < 30000; ++i) text += "line " + std::to_string(i) + "\n";
  std::string xz = compress(text, "xz");
  write_file(d.file("cut.xz"), xz.substr(0, xz.size() / 2));
  write_file(d.file("empty.txt"), "");
  struct Case {
    std::string args, must_mention;
  } cases[] = {
      {"corpus stats -i " + shell_quote(d.file("missing.txt")), "missing.txt"},
      {"corpus stats --format parquet -i " + shell_quote(d.file("bad.jsonl")), "jsonl"},
      {"corpus stats -i " + shell_quote(d.file("bad.jsonl")), "bad.jsonl:2"},
      {"corpus stats -i " + shell_quote(d.file("cut.xz")), "cut.xz"},
      {"corpus stats -i " + shell_quote(d.file("empty.txt")), "no documents"},
      {"corpus merge -i " + shell_quote(d.file("cut.xz")) + " -o " + shell_quote(d.file("out.jsonl")), "truncated"},
      {"corpus stats", "--input"},
      {"corpus nosuchcommand", "nosuchcommand"},
  };
  for (const auto& c : cases) {
    auto r = run_bertpt(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.err;
    EXPECT_EQ(r.signal, 0) << c.args;
    EXPECT_NE((r.err + r.out).find(c.must_mention), std::string::npos) << c.args << "\n" << r.err;
  }
  EXPECT_FALSE(std::ifstream(d.file("out.jsonl")).good()) << "a failed merge left its output";
  auto skip = run_bertpt("corpus stats --json --skip-bad-lines -i " + shell_quote(d.file("bad.jsonl")));
  ASSERT_EQ(skip.exit_code, 0) << skip.err;
  EXPECT_EQ(nlohmann::json::parse(skip.out)["total"]["bad_lines_skipped"], 1);
}

}  // namespace
}  // namespace bertpt
