#include "tokenizer/line_processor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "common/test_util.h"

namespace bertpt::tokenizer {
namespace {

using testing::slurp;
using testing::TempDir;
using testing::write_file;

// Runs `work` over `text` (a file) with `threads` and returns what was written.
std::string run(const std::string& text, unsigned threads, const LineWork& work, uint64_t* lines = nullptr) {
  TempDir d;
  write_file(d.file("in.txt"), text);
  LineInput in(d.file("in.txt"));
  LineOutput out(d.file("out.txt"));
  const uint64_t n = process_lines(in, out, threads, work);
  if (lines) *lines = n;
  EXPECT_FALSE(std::filesystem::exists(d.file("out.txt"))) << "the output appears only when committed";
  out.commit();
  return slurp(d.file("out.txt"));
}

TEST(LineProcessor, EveryLineOnceInInputOrderWhateverTheThreads) {
  std::string text, want;
  for (int i = 0; i < 50000; ++i) {
    text += "line " + std::to_string(i) + "\n";
    want += "LINE " + std::to_string(i) + "\n";
  }
  auto upper = [](std::string_view line, std::string& out, unsigned) {
    out += "LINE";
    out += line.substr(4);
  };
  for (unsigned threads : {1u, 2u, 7u}) {
    uint64_t lines = 0;
    EXPECT_EQ(run(text, threads, upper, &lines), want) << threads << " threads";
    EXPECT_EQ(lines, 50000u);
  }
}

TEST(LineProcessor, ALastLineWithoutNewlineAndALineLongerThanABatch) {
  const std::string longest(9u << 20, 'x');  // longer than two 4 MiB batches
  auto length = [](std::string_view line, std::string& out, unsigned) { out += std::to_string(line.size()); };
  uint64_t lines = 0;
  EXPECT_EQ(run("a\n" + longest + "\nbc", 2, length, &lines), "1\n" + std::to_string(longest.size()) + "\n2\n");
  EXPECT_EQ(lines, 3u);
  EXPECT_EQ(run("", 2, length, &lines), "");
  EXPECT_EQ(lines, 0u);
}

TEST(LineProcessor, EachThreadIndexIsItsOwn) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "w\n";
  std::atomic<int> out_of_range{0};
  run(text, 4, [&](std::string_view, std::string& out, unsigned t) {
    if (t >= 4) ++out_of_range;
    out += 'k';
  });
  EXPECT_EQ(out_of_range.load(), 0);
}

}  // namespace
}  // namespace bertpt::tokenizer
