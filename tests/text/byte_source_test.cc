#include "text/byte_source.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

std::string read_all(const std::string& path) {
  auto src = open_byte_source(path);
  std::string out;
  char buf[777];  // odd size: exercises partial reads across decoder boundaries
  for (size_t n; (n = src->read(buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

std::string sample_text() {
  std::string s;
  for (int i = 0; i < 5000; ++i) s += "line " + std::to_string(i) + " with some text, ünïcödé and 中文\n";
  return s;
}

class CodecTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CodecTest, RoundTripsAndIsDetectedByMagicNotName) {
  TempDir dir;
  std::string text = sample_text();
  std::string path = dir.file("misleading-name.txt");  // the name says text; the bytes say otherwise
  write_file(path, compress(text, GetParam()));
  auto src = open_byte_source(path);
  EXPECT_EQ(compression_name(src->compression()), GetParam());
  EXPECT_EQ(read_all(path), text);
}

TEST_P(CodecTest, ConcatenatedStreamsAreReadToTheEnd) {
  TempDir dir;
  std::string a = sample_text(), b = "second member\n";
  write_file(dir.file("multi"), compress(a, GetParam()) + compress(b, GetParam()));
  EXPECT_EQ(read_all(dir.file("multi")), a + b);
}

TEST_P(CodecTest, TruncatedStreamIsABadInputNamingTheFile) {
  TempDir dir;
  std::string c = compress(sample_text(), GetParam());
  std::string path = dir.file("cut.bin");
  write_file(path, c.substr(0, c.size() / 2));
  try {
    read_all(path);
    FAIL() << "no error for a truncated " << GetParam() << " file";
  } catch (const BadInput& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("decompressed bytes"), std::string::npos) << msg;
  }
}

TEST_P(CodecTest, CorruptStreamIsABadInput) {
  TempDir dir;
  std::string c = compress(sample_text(), GetParam());
  for (size_t i = c.size() / 3; i < c.size() / 3 + 64 && i < c.size(); ++i) c[i] = char(c[i] ^ 0x5A);
  write_file(dir.file("corrupt"), c);
  EXPECT_THROW(read_all(dir.file("corrupt")), BadInput);
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest, ::testing::Values("gzip", "zstd", "xz", "bzip2"));

TEST(ByteSource, PlainFilesAndEmptyFiles) {
  TempDir dir;
  write_file(dir.file("plain"), "hello\n");
  write_file(dir.file("empty"), "");
  write_file(dir.file("tiny"), "\x1f");  // a lone gzip magic byte is just a byte
  EXPECT_EQ(read_all(dir.file("plain")), "hello\n");
  EXPECT_EQ(read_all(dir.file("empty")), "");
  EXPECT_EQ(read_all(dir.file("tiny")), "\x1f");
}

TEST(ByteSource, MissingFileNamesThePath) {
  try {
    open_byte_source("/nonexistent/bertpt/file.txt");
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/bertpt/file.txt"), std::string::npos);
  }
}

}  // namespace
}  // namespace bertpt::text
