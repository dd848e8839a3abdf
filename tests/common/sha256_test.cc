#include "common/sha256.h"

#include <gtest/gtest.h>

#include "common/hash.h"
#include "common/hash_set64.h"
#include "common/test_util.h"

namespace bertpt {
namespace {

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// Peer: coreutils' sha256sum on the same bytes, at sizes around the 64-byte block boundary.
TEST(Sha256, MatchesSha256sum) {
  testing::TempDir d;
  for (size_t n : {55u, 56u, 63u, 64u, 65u, 1000u, 100000u}) {
    std::string data;
    for (size_t i = 0; i < n; ++i) data.push_back(char(i * 7 + 3));
    testing::write_file(d.file("f"), data);
    auto r = testing::run_shell("sha256sum " + testing::shell_quote(d.file("f")));
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(sha256_file(d.file("f")), r.out.substr(0, 64)) << n;
  }
}

TEST(Hash64, StableAndSeeded) {
  // Pinned values: shuffles and splits written to disk depend on them never changing. mix64 is
  // SplitMix64's finalizer: from state 0 its first output is the published 0xe220a8397b1dcdaf. The
  // hash64 values were computed by a separate Python transcription of src/common/hash.cc.
  EXPECT_EQ(mix64(0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(mix64(1), 0x910a2dec89025cc1ull);
  EXPECT_EQ(hash64("hello"), 0x0ebaa34220b642adull);
  EXPECT_EQ(hash64("hello", 1), 0xf23c1df85cd67be0ull);
  EXPECT_EQ(hash64(""), 0x6511f5aa7e70817aull);
  EXPECT_EQ(hash64("the quick brown fox jumps over the lazy dog"), 0x8cb10bddec066035ull);  // > 16 bytes
  EXPECT_EQ(hash64("hello"), hash64("hello"));
  EXPECT_NE(hash64("hello"), hash64("hello", 1));
  EXPECT_NE(hash64("hello"), hash64("hellp"));
  EXPECT_NE(hash64(""), hash64(std::string(1, '\0')));
}

TEST(HashSet64, InsertsOnceAndGrows) {
  HashSet64 s;
  for (uint64_t i = 0; i < 10000; ++i) EXPECT_TRUE(s.insert(mix64(i)));
  for (uint64_t i = 0; i < 10000; ++i) EXPECT_FALSE(s.insert(mix64(i)));
  EXPECT_EQ(s.size(), 10000u);
  EXPECT_TRUE(s.insert(0));
  EXPECT_FALSE(s.insert(0));
}

}  // namespace
}  // namespace bertpt
