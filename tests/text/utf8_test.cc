#include "text/utf8.h"

#include <gtest/gtest.h>

#include <random>

#include "common/test_util.h"

namespace bertpt::text {
namespace {

std::string repair(std::string_view in, RepairCounts* counts = nullptr) {
  RepairCounts c;
  std::string out;
  repair_utf8(in, out, c);
  if (counts) *counts = c;
  return out;
}

const std::string kFFFD = "\xEF\xBF\xBD";

TEST(Utf8, CleanTextIsUntouched) {
  std::string s = "plain ascii, Ünïcödé, 中文, emoji 😀, and a long run of ascii text to pass the 8-byte path";
  EXPECT_TRUE(is_clean_utf8(s));
  RepairCounts c;
  EXPECT_EQ(repair(s, &c), s);
  EXPECT_EQ(c.invalid, 0u);
  EXPECT_EQ(c.nul, 0u);
}

TEST(Utf8, MaximalSubpartsBecomeOneReplacementEach) {
  RepairCounts c;
  // Truncated 4-byte sequence: one U+FFFD for the whole valid prefix.
  EXPECT_EQ(repair("a\xF0\x9F\x98"
                   "b",
                   &c),
            "a" + kFFFD + "b");
  EXPECT_EQ(c.invalid, 1u);
  // Overlong encodings: C0/C1 are never valid leads, so each byte is replaced.
  EXPECT_EQ(repair("\xC0\xAF", &c), kFFFD + kFFFD);
  EXPECT_EQ(c.invalid, 2u);
  // Encoded surrogate U+D800: ED must be followed by 80..9F.
  EXPECT_EQ(repair("\xED\xA0\x80", &c), kFFFD + kFFFD + kFFFD);
  // Above U+10FFFF.
  EXPECT_EQ(repair("\xF4\x90\x80\x80", &c), kFFFD + kFFFD + kFFFD + kFFFD);
  // Stray continuation bytes and a Latin-1 byte in ASCII text.
  EXPECT_EQ(repair("caf\xE9 au lait\x80", &c), "caf" + kFFFD + " au lait" + kFFFD);
  EXPECT_EQ(c.invalid, 2u);
}

TEST(Utf8, NulBytesAreRemovedAndCounted) {
  RepairCounts c;
  EXPECT_FALSE(is_clean_utf8(std::string("ab\0cd", 5)));
  EXPECT_EQ(repair(std::string("ab\0c\0\0d0123456789", 17), &c), "abcd0123456789");
  EXPECT_EQ(c.nul, 3u);
  EXPECT_EQ(c.invalid, 0u);
}

TEST(Utf8, SafePrefixNeverCutsACharacter) {
  std::string s =
      "ab\xE4\xB8\xAD"
      "cd";  // ab中cd
  EXPECT_EQ(utf8_safe_prefix(s, 3), 2u);
  EXPECT_EQ(utf8_safe_prefix(s, 4), 2u);
  EXPECT_EQ(utf8_safe_prefix(s, 5), 5u);
  EXPECT_EQ(utf8_safe_prefix(s, 100), s.size());
}

TEST(Utf8, CountsCodePoints) {
  EXPECT_EQ(count_code_points("a中😀"), 3u);
  EXPECT_EQ(count_code_points(""), 0u);
}

TEST(Utf8, AppendEncodesEveryLength) {
  std::string s;
  for (uint32_t cp : {0x41u, 0xE9u, 0x4E2Du, 0x1F600u}) append_utf8(s, cp);
  EXPECT_EQ(s, "Aé中😀");
}

// Peer check: Python's UTF-8 decoder (bytes.decode with errors="replace") replaces invalid
// sequences by the same maximal-subpart rule (Unicode's recommended practice, as the WHATWG decoder).
// Random byte strings must decode identically.
TEST(Utf8, MatchesPythonDecoderOnRandomBytes) {
  if (bertpt::testing::run_shell("python3 --version").exit_code != 0)
    BERTPT_SKIP_UNLESS_CI("python3 is not installed (scripts/setup installs it)");
  std::mt19937 rng(7);
  bertpt::testing::TempDir dir;
  std::string inputs, expected;
  const int kCases = 300;
  for (int i = 0; i < kCases; ++i) {
    std::string s;
    int len = int(rng() % 24);
    for (int k = 0; k < len; ++k) {
      // Bias towards bytes that make interesting sequences; no NUL (we remove those, Python keeps them).
      static const unsigned char pool[] = {'a',  0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F,
                                           0xEF, 0xF0, 0x90, 0xF4, 0x8F, 0xF5, 0xFF, 0xC0, 0xE1};
      s.push_back(char(rng() % 3 == 0 ? 1 + rng() % 255 : pool[rng() % sizeof pool]));
    }
    bertpt::testing::write_file(dir.file(std::to_string(i)), s);
    expected += repair(s) + '\n';
  }
  // Decodes the files 0 .. kCases-1 of the directory argv[1], one output line each.
  const std::string script =
      "import sys\n"
      "for i in range(" +
      std::to_string(kCases) +
      "):\n"
      "    b = open(sys.argv[1] + '/' + str(i), 'rb').read()\n"
      "    sys.stdout.buffer.write(b.decode('utf-8', 'replace').encode('utf-8') + b'\\n')\n";
  auto r = bertpt::testing::run_shell("python3 -c " + bertpt::testing::shell_quote(script) + " " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
}

}  // namespace
}  // namespace bertpt::text
