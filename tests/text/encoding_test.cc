// Decoding to UTF-8: what the first bytes say, UTF-16/32 files equal to their UTF-8 twins across chunk
// boundaries, legacy encodings equal to glibc's `iconv` program, undecodable bytes as counted U+FFFD.
#include "text/encoding.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::text {
namespace {

using namespace std::string_literals;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

struct Decoded {
  std::string text;
  std::string from;
  uint64_t undecodable = 0;
};

Decoded decode_file(const std::string& path, const std::string& encoding = "") {
  auto src = decode_to_utf8(open_byte_source(path), encoding, path);
  Decoded d;
  char buf[1000];  // an even size that no character width divides evenly with the chunks
  for (size_t n; (n = src->read(buf, sizeof buf)) > 0;) d.text.append(buf, n);
  d.from = std::string(src->decoded_from());
  d.undecodable = src->undecodable();
  return d;
}

// Text with 1-, 2-, 3- and 4-byte characters (the last a surrogate pair in UTF-16), long enough to
// cross the decoder's 64 KiB input chunks many times.
std::string sample() {
  std::string s;
  for (int i = 0; i < 20000; ++i) s += "line " + std::to_string(i) + " héllo 中文 😀\n";
  return s;
}

// The output of glibc's `iconv` program converting `text` from `from` to `to`.
std::string iconv_program(const std::string& text, const std::string& from, const std::string& to) {
  TempDir d;
  write_file(d.file("in"), text);
  auto r = testing::run_shell("iconv -f " + from + " -t " + to + " " + d.file("in"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Encoding, SniffsByteOrderMarksAndXmlDeclarations) {
  EXPECT_EQ(sniff_encoding("\xFF\xFE<\0"s).name, "UTF-16LE");
  EXPECT_EQ(sniff_encoding("\xFF\xFE<\0"s).mark_bytes, 2u);
  EXPECT_EQ(sniff_encoding("\xFE\xFF\0<"s).name, "UTF-16BE");
  EXPECT_EQ(sniff_encoding("\xFF\xFE\0\0"s).name, "UTF-32LE");
  EXPECT_EQ(sniff_encoding("\xFF\xFE\0\0"s).mark_bytes, 4u);
  EXPECT_EQ(sniff_encoding("\0\0\xFE\xFF"s).name, "UTF-32BE");
  EXPECT_EQ(sniff_encoding("<\0?\0"s).name, "UTF-16LE");
  EXPECT_EQ(sniff_encoding("<\0?\0"s).mark_bytes, 0u);
  EXPECT_EQ(sniff_encoding("\0<\0?"s).name, "UTF-16BE");
  EXPECT_EQ(sniff_encoding("<\0\0\0"s).name, "UTF-32LE");
  EXPECT_EQ(sniff_encoding("\0\0\0<"s).name, "UTF-32BE");
  EXPECT_EQ(sniff_encoding("\xEF\xBB\xBFhi").name, "");  // UTF-8's own mark: UTF-8
  EXPECT_EQ(sniff_encoding("<?xm").name, "");
  EXPECT_EQ(sniff_encoding("").name, "");
}

TEST(Encoding, Utf16And32FilesDecodeToTheirUtf8Twin) {
  TempDir d;
  const std::string text = sample();
  for (const char* enc : {"UTF-16", "UTF-32"}) {  // glibc writes these with a byte-order mark
    for (const char* order : {"LE", "BE"}) {
      const std::string with_order = std::string(enc) + order;
      std::string bytes = iconv_program(text, "UTF-8", with_order);
      const std::string mark = iconv_program("\xEF\xBB\xBF", "UTF-8", with_order);
      write_file(d.file("f"), mark + bytes);
      Decoded got = decode_file(d.file("f"));
      EXPECT_EQ(got.from, with_order);
      EXPECT_TRUE(got.text == text) << with_order << ": decoded text differs";
      EXPECT_EQ(got.undecodable, 0u);
    }
  }
}

TEST(Encoding, PlainUtf8IsHandedOutAsItIs) {
  TempDir d;
  write_file(d.file("u8"), "\xEF\xBB\xBFhi\xFF\n");  // the mark and a bad byte are the line reader's to handle
  Decoded got = decode_file(d.file("u8"));
  EXPECT_EQ(got.text, "\xEF\xBB\xBFhi\xFF\n");
  EXPECT_EQ(got.from, "");
  write_file(d.file("short"), "a");
  EXPECT_EQ(decode_file(d.file("short")).text, "a");
  write_file(d.file("empty"), "");
  EXPECT_EQ(decode_file(d.file("empty")).text, "");
}

TEST(Encoding, LegacyEncodingsEqualTheIconvProgram) {
  TempDir d;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"LATIN1", "Le café à côté était fermé, naïve façade.\n"},
      {"CP1252", "“Smart quotes” — and the € sign.\n"},
      {"GB18030", "中文测试，繁體字與😀。\n"},
      {"SHIFT_JIS", "日本語のテキスト、カタカナ。\n"},
  };
  for (const auto& [enc, utf8] : cases) {
    // 3000 copies of one converted line (these encodings are stateless): one iconv run, not 3000.
    const std::string line = iconv_program(utf8, "UTF-8", enc);
    std::string legacy;
    for (int i = 0; i < 3000; ++i) legacy += line;
    write_file(d.file("f"), legacy);
    Decoded got = decode_file(d.file("f"), enc);
    EXPECT_TRUE(got.text == iconv_program(legacy, enc, "UTF-8")) << enc;
    EXPECT_EQ(got.undecodable, 0u) << enc;
    EXPECT_EQ(got.from, enc);
  }
}

TEST(Encoding, UndecodableSequencesBecomeCountedReplacementCharacters) {
  TempDir d;
  // A lone low surrogate, then a character cut by the end of the file (one odd byte).
  write_file(d.file("u16"),
             "\xFF\xFE"
             "a\0"
             "\x00\xDC"
             "b\0"
             "c"s);
  Decoded got = decode_file(d.file("u16"));
  EXPECT_EQ(got.text,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(got.undecodable, 2u);
  write_file(d.file("sjis"), "ok\x81\n");  // Shift_JIS: a lead byte with no trail byte before the newline
  got = decode_file(d.file("sjis"), "SHIFT_JIS");
  EXPECT_EQ(got.undecodable, 1u);
  EXPECT_TRUE(got.text.starts_with("ok\xEF\xBF\xBD")) << got.text;
}

TEST(Encoding, NamesAreCheckedAndUtf8NamesReadAsTheyAre) {
  EXPECT_NO_THROW(check_encoding_name("latin1", "--encoding"));
  EXPECT_NO_THROW(check_encoding_name("GB18030", "--encoding"));
  try {
    check_encoding_name("klingon-8", "--encoding");
    FAIL() << "an unknown encoding was accepted";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), "--encoding 'klingon-8': no such encoding");
  }
  EXPECT_TRUE(is_utf8_name("utf8"));
  EXPECT_TRUE(is_utf8_name("UTF-8"));
  EXPECT_FALSE(is_utf8_name("UTF-16"));
  TempDir d;
  write_file(d.file("f"),
             "\xFF\xFE"
             "a\0"s);
  EXPECT_EQ(decode_file(d.file("f"), "utf-8").text,
            "\xFF\xFE"
            "a\0"s);  // named UTF-8: no sniffing
}

}  // namespace
}  // namespace bertpt::text
