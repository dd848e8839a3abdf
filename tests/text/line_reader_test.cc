#include "text/line_reader.h"

#include <gtest/gtest.h>

#include "common/test_util.h"

namespace bertpt::text {
namespace {

using bertpt::testing::TempDir;
using bertpt::testing::write_file;

struct Line {
  std::string text;
  uint64_t number;
  bool operator==(const Line& o) const { return text == o.text && number == o.number; }
};

std::vector<Line> lines_of(const std::string& content, size_t cap = 1 << 20, uint64_t* splits = nullptr) {
  TempDir dir;
  write_file(dir.file("f"), content);
  LineReader r(open_byte_source(dir.file("f")), cap);
  std::vector<Line> out;
  std::string_view l;
  while (r.next(l)) out.push_back({std::string(l), r.line_number()});
  if (splits) *splits = r.long_lines_split();
  return out;
}

TEST(LineReader, SplitsOnNewlinesAndStripsCrlfAndBom) {
  auto ls = lines_of("\xEF\xBB\xBFone\r\ntwo\n\nthree");
  std::vector<Line> want = {{"one", 1}, {"two", 2}, {"", 3}, {"three", 4}};
  EXPECT_EQ(ls, want);
}

TEST(LineReader, BomOnlyAtTheStartIsDropped) {
  auto ls = lines_of(
      "a\n\xEF\xBB\xBF"
      "b\n");
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[1].text,
            "\xEF\xBB\xBF"
            "b");
}

TEST(LineReader, EmptyFileHasNoLines) { EXPECT_TRUE(lines_of("").empty()); }

TEST(LineReader, OverlongLinesAreCutAtCharacterBoundaries) {
  std::string big;
  for (int i = 0; i < 20; ++i) big += "中";  // 60 bytes
  uint64_t splits = 0;
  auto ls = lines_of(big + "\nnext\n", 16, &splits);
  EXPECT_EQ(splits, 1u);
  std::string joined;
  for (size_t i = 0; i + 1 < ls.size(); ++i) {
    EXPECT_LE(ls[i].text.size(), 16u);
    EXPECT_EQ(ls[i].text.size() % 3, 0u) << "cut inside a character";
    EXPECT_EQ(ls[i].number, 1u);
    joined += ls[i].text;
  }
  EXPECT_EQ(joined, big);
  EXPECT_EQ(ls.back(), (Line{"next", 2}));
}

TEST(LineReader, LinesLargerThanTheReadChunkSurvive) {
  std::string a(3'000'000, 'x'), b(5, 'y');
  auto ls = lines_of(a + "\n" + b + "\n", 8 << 20);
  ASSERT_EQ(ls.size(), 2u);
  EXPECT_EQ(ls[0].text, a);
  EXPECT_EQ(ls[1].text, b);
}

}  // namespace
}  // namespace bertpt::text
