// What a file's first bytes say when it is refused as not text: a binary file's header or a NUL byte
// that no UTF-16/32 text has, and otherwise the UTF-16/32 encoding it reads in.
#include "text/raw_head.h"

#include <gtest/gtest.h>

#include <string>

namespace bertpt::text {
namespace {

using namespace std::string_literals;

std::string wide(const std::u16string& text, bool little) {
  std::string out;
  for (char16_t c : text) {
    const char lo = char(c & 0xFF), hi = char(c >> 8);
    out += little ? std::string{lo, hi} : std::string{hi, lo};
  }
  return out;
}

std::string wide32(const std::u32string& text, bool little) {
  std::string out;
  for (char32_t c : text) {
    for (int k = 0; k < 4; ++k) out += char(c >> (8 * (little ? k : 3 - k)));
  }
  return out;
}

TEST(RawHead, KnownBinaryHeadersAreNamedAtByteZero) {
  auto elf = binary_sign(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\0"s);
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->offset, 0u);
  EXPECT_EQ(elf->what, "an ELF executable header (7f 45 4c 46)");
  EXPECT_EQ(binary_sign("\x89PNG\r\n\x1a\n\0\0\0\rIHDR"s)->what, "a PNG image header (89 50 4e 47 0d 0a 1a 0a)");
  EXPECT_EQ(binary_sign("PK\x03\x04\x14\0\x06\0"s)->what,
            "a ZIP archive header (zip, docx, xlsx, jar …) (50 4b 03 04)");
  EXPECT_EQ(binary_sign("MZ\x90\0\x03\0\0\0"s)->what, "a Windows executable header (4d 5a)");
  EXPECT_FALSE(binary_sign("MZ-Sport is a shop\n"));  // MZ without the DOS header's NUL bytes is text
}

TEST(RawHead, ANulByteThatNoWideTextHasIsBinary) {
  std::string junk = "some words, then a table\n"s + "\x01\x02\0\0\0\0\xff\xfe\x10\0\0\0"s;
  auto sign = binary_sign(junk);
  ASSERT_TRUE(sign);
  EXPECT_EQ(sign->offset, junk.find('\0'));
  EXPECT_EQ(sign->what, "a NUL byte");
  EXPECT_EQ(binary_sign(std::string(4096, '\0'))->offset, 0u);  // /dev/zero
  EXPECT_EQ(wide_encoding_of(junk), "");
}

TEST(RawHead, TextIsNotBinary) {
  EXPECT_FALSE(binary_sign("plain ASCII\nand more\n"));
  EXPECT_FALSE(binary_sign("Le caf\xE9 \xE0 c\xF4t\xE9.\n"));  // latin1
  EXPECT_FALSE(binary_sign(""));
  const std::u16string text = u"première ligne, 中文 and 𝄞\r\nsecond\r\n";
  for (bool little : {true, false}) {
    EXPECT_FALSE(binary_sign(wide(text, little))) << little;
    EXPECT_FALSE(binary_sign(wide32(U"première ligne, 中文 and 𝄞\n", little))) << little;
  }
}

TEST(RawHead, WideTextReadsInItsEncodingAndByteOrder) {
  const std::u16string text = u"première ligne, 中文 and 𝄞\r\nsecond\r\n";
  EXPECT_EQ(wide_encoding_of(wide(text, true)), "UTF-16LE");
  EXPECT_EQ(wide_encoding_of(wide(text, false)), "UTF-16BE");
  EXPECT_EQ(wide_encoding_of(wide(text, true).substr(0, 7)), "UTF-16LE");  // a cut code unit is not wrong
  EXPECT_EQ(wide_encoding_of(wide32(U"première ligne, 中文 and 𝄞\n", true)), "UTF-32LE");
  EXPECT_EQ(wide_encoding_of(wide32(U"première ligne, 中文 and 𝄞\n", false)), "UTF-32BE");
  EXPECT_EQ(wide_encoding_of("no NUL byte at all"), "");
  std::u16string lone = text;
  lone[3] = u'\xD800';  // an unpaired surrogate: not UTF-16
  EXPECT_EQ(wide_encoding_of(wide(lone, true)), "");
}

TEST(RawHead, KeepsTheFirstBytesThatPass) {
  RawHead head(5);
  head.add("abc", 3);
  EXPECT_EQ(head.bytes(), "abc");
  head.add("defgh", 5);
  head.add("ijk", 3);
  EXPECT_EQ(head.bytes(), "abcde");
}

}  // namespace
}  // namespace bertpt::text
