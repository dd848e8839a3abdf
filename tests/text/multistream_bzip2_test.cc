#include "text/multistream_bzip2.h"

#include <bzlib.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::text {
namespace {

using bertpt::testing::compress;
using bertpt::testing::slurp;
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

// `text` as one bzip2 stream of blocks of level * 100 kB, written by libbz2.
std::string bzip2(const std::string& text, int level) {
  unsigned size = unsigned(text.size() + text.size() / 50 + 600);
  std::string out(size, '\0');
  EXPECT_EQ(
      BZ2_bzBuffToBuffCompress(out.data(), &size, const_cast<char*>(text.data()), unsigned(text.size()), level, 0, 0),
      BZ_OK);
  out.resize(size);
  return out;
}

// The bytes `s` gives before it throws BadInput, and the message ("" when it reads to the end).
std::pair<std::string, std::string> read_to_error(ByteSource& s) {
  std::string got;
  try {
    char buf[65536];
    for (size_t n; (n = s.read(buf, sizeof buf)) > 0;) got.append(buf, n);
  } catch (const BadInput& e) {
    return {got, e.what()};
  }
  return {got, ""};
}

// The compressed byte offset that a damage message names, after `prefix`.
uint64_t offset_in(const std::string& message, const std::string& prefix) {
  const size_t at = message.find(prefix);
  EXPECT_NE(at, std::string::npos) << message;
  return at == std::string::npos ? 0 : std::stoull(message.substr(at + prefix.size()));
}

// Decodes `path` on 2 and 3 threads, in units of each of `units` bytes, and expects `text`.
void expect_parallel_decode(const std::string& path, const std::string& text, std::vector<size_t> units) {
  for (size_t threads : {2, 3}) {
    for (size_t unit : units) {
      auto s = open_multistream_bzip2(path, threads, unit);
      ASSERT_TRUE(s);
      EXPECT_EQ(read_all(*s), text) << threads << " threads, units of " << unit;
    }
  }
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

TEST(MultistreamBzip2, OneThreadIsLeftToTheSequentialDecoder) {
  TempDir d;
  write_file(d.file("one.bz2"), compress(text_of(1 << 20), "bzip2"));
  EXPECT_FALSE(open_multistream_bzip2(d.file("one.bz2"), 1));
  EXPECT_TRUE(open_multistream_bzip2(d.file("one.bz2"), 2));
  EXPECT_THROW(open_multistream_bzip2(d.file("missing.bz2"), 2), BadInput);
}

// What `bzip2 file` writes: one stream of many blocks, cut at blocks.
TEST(MultistreamBzip2, OneStreamOfManyBlocksOnManyThreadsGivesTheBytesOfOne) {
  TempDir d;
  const std::string text = text_of(600000);
  write_file(d.file("one.bz2"), bzip2(text, 1));                       // 6 blocks
  EXPECT_EQ(read_all(*open_byte_source(d.file("one.bz2"), 1)), text);  // the sequential decoder
  EXPECT_EQ(read_all(*open_byte_source(d.file("one.bz2"), 3)), text);
  expect_parallel_decode(d.file("one.bz2"), text, {1, 64, 20000, 100000});
}

// A block's symbol map holds one 16-bit word per used range of 16 byte values: text of exactly the
// bytes below puts the words 3141 5926 5359 there, the block magic, 121 bits after each real one.
TEST(MultistreamBzip2, BlockMagicInsideABlockIsNoBlockStart) {
  const std::string symbols = "BCGIOQSTWZ]^acfgiklo";  // 0x3141 0x5926 0x5359 over 0x40..0x6f
  std::string text;
  uint64_t x = 88172645463325252ull;
  while (text.size() < 350000) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const char c = symbols[x % symbols.size()];
    if (text.empty() || text.back() != c) text += c;  // no runs, whose lengths would be symbols too
  }
  const std::string bz = bzip2(text, 1);
  uint64_t window = 0;
  for (int i = 153; i < 153 + 48; ++i) window = window << 1 | ((uint8_t(bz[i / 8]) >> (7 - i % 8)) & 1);
  ASSERT_EQ(window, 0x314159265359u);  // the first block starts at bit 32; its map at bit 32 + 121
  TempDir d;
  write_file(d.file("magic.bz2"), bz);
  // Units of 16 bytes cut the first one at that magic, so it is decoded again with the next unit.
  expect_parallel_decode(d.file("magic.bz2"), text, {16, 64, 30000, 1 << 20});
}

// pbzip2 and multistream dumps: streams of several blocks each, levels mixed, an empty stream.
TEST(MultistreamBzip2, StreamsOfManyBlocksGiveTheBytesOfOne) {
  TempDir d;
  const std::string text = text_of(1000000);
  std::string bz;
  for (size_t at = 0, i = 0; at < text.size(); at += 250000, ++i) {
    bz += bzip2(text.substr(at, 250000), i % 2 ? 1 : 2);
    if (i == 1) bz += bzip2("", 9);
  }
  write_file(d.file("streams.bz2"), bz);
  EXPECT_EQ(read_all(*open_byte_source(d.file("streams.bz2"), 1)), text);
  expect_parallel_decode(d.file("streams.bz2"), text, {1, 64, 20000, 1 << 20});
}

TEST(MultistreamBzip2, EmptyStreamsGiveNoBytes) {
  TempDir d;
  write_file(d.file("empty.bz2"), bzip2("", 9));
  ASSERT_EQ(slurp(d.file("empty.bz2")).size(), 14u);  // header, end-of-stream magic, CRC
  expect_parallel_decode(d.file("empty.bz2"), "", {1, 1 << 20});
  write_file(d.file("empties.bz2"), bzip2("", 9) + bzip2("", 1) + bzip2("x", 5));
  expect_parallel_decode(d.file("empties.bz2"), "x", {1, 1 << 20});
}

TEST(MultistreamBzip2, OneStreamDamageNamesTheFileAndOffsetAfterTheBytesBeforeIt) {
  TempDir d;
  const std::string text = text_of(600000), bz = bzip2(text, 1), path = d.file("one.bz2");
  const std::string truncated = path + ": bzip2 data is truncated at compressed byte ";
  for (size_t cut : {1, 10, 5000}) {  // in the stream's CRC, its end magic, its last block
    write_file(path, bz.substr(0, bz.size() - cut));
    for (size_t unit : {64, 1 << 20}) {
      auto [got, message] = read_to_error(*open_multistream_bzip2(path, 2, unit));
      EXPECT_NE(message.find(truncated), std::string::npos) << cut << ": " << message;
      EXPECT_LE(offset_in(message, truncated), bz.size() - cut);
      EXPECT_GT(got.size(), text.size() / 2);
      EXPECT_EQ(got, text.substr(0, got.size()));
    }
  }
  write_file(path, bz.substr(0, 4));  // the stream header: it ends where a block could
  auto [none, message] = read_to_error(*open_multistream_bzip2(path, 2));
  EXPECT_EQ(none, "");
  EXPECT_NE(message.find(truncated + "4"), std::string::npos) << message;
  std::string crc = bz;
  crc[bz.size() - 2] ^= 1;  // in the stream's combined CRC: every block decodes
  write_file(path, crc);
  const std::string mismatch = path + ": bzip2 data is corrupt (its combined CRC does not match) at compressed byte ";
  for (size_t unit : {64, 1 << 20}) {
    auto [got, message] = read_to_error(*open_multistream_bzip2(path, 3, unit));
    EXPECT_NE(message.find(mismatch), std::string::npos) << message;
    EXPECT_GT(offset_in(message, mismatch), bz.size() - 12);
    EXPECT_EQ(got, text);
  }
  std::string bad = bz;
  const size_t at = bz.size() / 2;  // in the middle one of 7 blocks
  bad[at] ^= 0x55;
  write_file(path, bad);
  const std::string corrupt = path + ": bzip2 data is corrupt at compressed byte ";
  for (size_t threads : {2, 3}) {
    for (size_t unit : {64, 20000, 1 << 20}) {
      auto [got, message] = read_to_error(*open_multistream_bzip2(path, threads, unit));
      EXPECT_NE(message.find(corrupt), std::string::npos) << message;
      EXPECT_LE(offset_in(message, corrupt), at);
      EXPECT_GT(offset_in(message, corrupt), at - bz.size() / 5);
      EXPECT_GT(got.size(), text.size() / 4);
      EXPECT_LT(got.size(), text.size() * 3 / 4);
      EXPECT_EQ(got, text.substr(0, got.size()));
    }
  }
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
    EXPECT_NE(std::string(e.what()).find(d.file("cut.bz2") + ": bzip2 data is truncated at compressed byte"),
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
