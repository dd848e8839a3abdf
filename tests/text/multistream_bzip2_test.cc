#include "text/multistream_bzip2.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::TempDir;
using bertpt::testing::write_file;

// ~6 MiB of text that compresses about 3x, and the same as one bzip2 stream per `piece` bytes (as
// Wikipedia's multistream dumps hold one stream per 100 pages).
std::string text_of(size_t bytes) {
  std::string t;
  uint64_t x = 88172645463325252ull;
  while (t.size() < bytes) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    t += "page " + std::to_string(x % 100000) + " word" + std::to_string(x % 977) + " and more text\n";
  }
  return t;
}

std::string multistream(const std::string& text, size_t piece) {
  std::string out;
  for (size_t at = 0; at < text.size(); at += piece) out += compress(text.substr(at, piece), "bzip2");
  return out;
}

std::string read_all(ByteSource& s) {
  std::string out;
  char buf[70000];
  for (size_t n; (n = s.read(buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

TEST(MultistreamBzip2, ManyThreadsGiveTheBytesOfOne) {
  TempDir d;
  const std::string text = text_of(6 << 20);
  write_file(d.file("multi.bz2"), multistream(text, 100000));
  auto parallel = open_multistream_bzip2(d.file("multi.bz2"), 3);
  ASSERT_TRUE(parallel);
  EXPECT_EQ(parallel->compression(), Compression::Bzip2);
  EXPECT_EQ(read_all(*parallel), text);
  EXPECT_EQ(read_all(*open_byte_source(d.file("multi.bz2"), 1)), text);  // the sequential decoder
  EXPECT_EQ(read_all(*open_byte_source(d.file("multi.bz2"), 2)), text);
}

TEST(MultistreamBzip2, OneStreamStaysWithTheSequentialDecoder) {
  TempDir d;
  write_file(d.file("one.bz2"), compress(text_of(1 << 20), "bzip2"));
  EXPECT_FALSE(open_multistream_bzip2(d.file("one.bz2"), 4));
  EXPECT_EQ(read_all(*open_byte_source(d.file("one.bz2"), 4)), text_of(1 << 20));
}

TEST(MultistreamBzip2, DamageNamesTheFileAndStreamAfterTheBytesBeforeIt) {
  TempDir d;
  const std::string text = text_of(4 << 20);
  const std::string bz = multistream(text, 100000);
  write_file(d.file("cut.bz2"), bz.substr(0, bz.size() - 5000));
  auto cut = open_multistream_bzip2(d.file("cut.bz2"), 3);
  ASSERT_TRUE(cut);
  std::string got;
  try {
    char buf[65536];
    for (size_t n; (n = cut->read(buf, sizeof buf)) > 0;) got.append(buf, n);
    FAIL() << "a truncated file was read to the end";
  } catch (const BadInput& e) {
    EXPECT_NE(
        std::string(e.what()).find(d.file("cut.bz2") + ": bzip2 data is truncated in the stream at compressed byte"),
        std::string::npos)
        << e.what();
  }
  EXPECT_GT(got.size(), text.size() / 2);
  EXPECT_EQ(got, text.substr(0, got.size()));
  std::string corrupt = bz;
  corrupt[bz.size() / 2] ^= 0x55;
  write_file(d.file("bad.bz2"), corrupt);
  auto bad = open_multistream_bzip2(d.file("bad.bz2"), 2);
  ASSERT_TRUE(bad);
  EXPECT_THROW(read_all(*bad), BadInput);
}

}  // namespace
}  // namespace bertpt::text
