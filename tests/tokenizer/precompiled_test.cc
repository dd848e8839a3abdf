// The Precompiled normalizer (normalizers/precompiled.h) over small charsmaps built here in
// darts-clone's layout, and the checks made when a blob is read. Expected texts are Hugging Face
// tokenizers 0.23.3's (normalizers.Precompiled(blob).normalize_str) for the same blob.
#include "tokenizer/normalizers/precompiled.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"

namespace bertpt::tokenizer {
namespace {

void put_u32(std::string& out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);  // little-endian hosts, as the blob is
  out.append(b, 4);
}

// A charsmap for `rules` (key -> replacement) in the layout spm_precompiled reads: node k of the
// trie (breadth-first, children by byte) has its children in the 256-unit block k + 1 (base
// 256 * (k + 1), the child with byte c at base ^ c) and its value unit at base ^ 0; a unit holds
// (offset << 10) | has_leaf << 8 | byte, where offset = its position ^ its base, and a value unit
// has bit 31 set and the pool offset of its replacement.
std::string charsmap(const std::map<std::string, std::string>& rules) {
  std::vector<std::string> nodes{""};
  for (size_t depth = 0;; ++depth) {
    std::set<std::string> next;
    for (const auto& [key, _] : rules) {
      if (key.size() > depth) next.insert(key.substr(0, depth + 1));
    }
    if (next.empty()) break;
    nodes.insert(nodes.end(), next.begin(), next.end());
  }
  std::map<std::string, uint32_t> index, pool_offset;
  for (uint32_t i = 0; i < nodes.size(); ++i) index[nodes[i]] = i;
  std::string pool;
  for (const auto& [key, replacement] : rules) {
    pool_offset[key] = uint32_t(pool.size());
    pool += replacement;
    pool.push_back('\0');
  }
  std::vector<uint32_t> units(256 * (nodes.size() + 1));
  for (const std::string& node : nodes) {
    const uint32_t base = 256 * (index[node] + 1);
    const uint32_t label = node.empty() ? 0 : static_cast<unsigned char>(node.back());
    const uint32_t at = node.empty() ? 0 : 256 * (index[node.substr(0, node.size() - 1)] + 1) + label;
    const bool leaf = pool_offset.count(node) > 0;
    units[at] = ((at ^ base) << 10) | (uint32_t(leaf) << 8) | label;
    if (leaf) units[base] = 0x80000000u | pool_offset[node];
  }
  std::string blob;
  put_u32(blob, uint32_t(units.size() * 4));
  for (const uint32_t u : units) put_u32(blob, u);
  return blob + pool;
}

const std::map<std::string, std::string> kRules = {
    {"a", "A"},
    {"ab", "X"},
    {"e", "E"},
    {"e\xCC\x81", "\xC3\xA9"},  // e + U+0301 -> é (never used: "e" is the shorter key)
    {"\xE2\x80\x8B", ""},       // U+200B deleted
    {"\xEF\xBC\xA1", "a"},      // U+FF21 FULLWIDTH A
    {"\xE2\x91\xA0", "1"},      // U+2460 CIRCLED DIGIT ONE
    {"\xEF\xAC\x81", "fi"},     // U+FB01 LIGATURE fi
    {"g\xCC\x81", "G!"},
};

std::string normalize(const PrecompiledNormalizer& n, std::string_view text) {
  std::string out;
  n.normalize(text, out);
  return out;
}

std::string bad_blob(const std::string& blob) {
  try {
    PrecompiledNormalizer(blob, "tokenizer.json: field \"normalizer.precompiled_charsmap\"");
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

TEST(Precompiled, EachClusterTakesTheShortestRuleThatPrefixesIt) {
  const PrecompiledNormalizer n(charsmap(kRules), "test");
  EXPECT_EQ(normalize(n, "ab"), "Ab");  // "a" and "b" are two clusters: "ab" is never looked up
  EXPECT_EQ(normalize(n, "plain"), "plAin");
  EXPECT_EQ(normalize(n, "e\xCC\x81"), "E");   // the whole cluster becomes "e"'s replacement
  EXPECT_EQ(normalize(n, "a\xCC\x81"), "A");   // its accent is dropped with it
  EXPECT_EQ(normalize(n, "g\xCC\x81"), "G!");  // a two-character key
  EXPECT_EQ(normalize(n, "gg\xCC\x81"), "gG!");
  EXPECT_EQ(normalize(n, "\xEF\xBC\xA1\xCC\x81"), "a");  // 5 bytes: still one lookup
  EXPECT_EQ(normalize(n, "\xEF\xAC\x81ne"), "finE");
  EXPECT_EQ(normalize(n, "x\xE2\x80\x8By"), "xy");
}

TEST(Precompiled, ClustersOfSixBytesOrMoreGoCharacterByCharacter) {
  const PrecompiledNormalizer n(charsmap(kRules), "test");
  EXPECT_EQ(normalize(n, "e\xCC\x81\xCC\x81\xCC\x81"), "E\xCC\x81\xCC\x81\xCC\x81");
  EXPECT_EQ(normalize(n, "\xE2\x91\xA0\xCC\x81\xCC\x81"), "1\xCC\x81\xCC\x81");
  EXPECT_EQ(normalize(n, "\xE2\x91\xA0\xCC\x81"), "1");
}

TEST(Precompiled, LookupsStopAtNulAndCrLfIsOneCluster) {
  const PrecompiledNormalizer n(charsmap(kRules), "test");
  EXPECT_EQ(normalize(n, std::string("a\0b", 3)), std::string("A\0b", 3));
  EXPECT_EQ(normalize(n, "\r\n"), "\r\n");
  EXPECT_EQ(normalize(n, ""), "");
  EXPECT_EQ(n.transform("abc"), "A");
  EXPECT_EQ(n.transform("b"), std::nullopt);
  EXPECT_EQ(n.transform("\xE2\x80\x8B"), "");
}

TEST(Precompiled, ReadsAndWritesTokenizerJson) {
  const std::string blob = charsmap(kRules);
  const nlohmann::json j = {{"type", "Precompiled"}, {"precompiled_charsmap", encode_base64(blob)}};
  const auto n = PrecompiledNormalizer::from_json(JsonFields(j, "tokenizer.json", "normalizer"));
  EXPECT_EQ(normalize(*n, "ab"), "Ab");
  const nlohmann::ordered_json expected = {{"type", "Precompiled"}, {"precompiled_charsmap", encode_base64(blob)}};
  EXPECT_TRUE(n->to_json() == expected);  // (the blob is too long to print)
}

TEST(Precompiled, Base64IsReadStrictly) {
  EXPECT_EQ(decode_base64("QUJD"), "ABC");
  EXPECT_EQ(decode_base64("QUI="), "AB");
  EXPECT_EQ(decode_base64("QQ=="), "A");
  EXPECT_EQ(decode_base64(""), "");
  EXPECT_EQ(decode_base64("QUJ"), std::nullopt);   // unpadded
  EXPECT_EQ(decode_base64("QR=="), std::nullopt);  // non-zero trailing bits
  EXPECT_EQ(decode_base64("Q==="), std::nullopt);
  EXPECT_EQ(decode_base64("QU=D"), std::nullopt);
  EXPECT_EQ(decode_base64("QUJ\n"), std::nullopt);
  EXPECT_EQ(encode_base64("AB"), "QUI=");
  EXPECT_EQ(encode_base64(std::string("\0\xFF", 2)), "AP8=");
}

TEST(Precompiled, BadBlobsAreRefusedWhenRead) {
  const std::string where = "tokenizer.json: field \"normalizer.precompiled_charsmap\"";
  const std::string blob = charsmap(kRules);
  EXPECT_EQ(bad_blob("abc"), where + " is 3 bytes, too short");
  EXPECT_EQ(bad_blob(blob.substr(0, 1000)), where + ": its trie of 20480 bytes runs past the blob's end (1000 bytes)");
  std::string empty_trie;
  put_u32(empty_trie, 0);
  EXPECT_EQ(bad_blob(empty_trie), where + ": its trie is empty");
  // A replacement offset past the pool: the value unit of "a" (node 1, base 512) rewritten.
  std::string past_pool = blob;
  const uint32_t offset = 0x80000000u | 5000;
  std::memcpy(&past_pool[4 + 512 * 4], &offset, 4);
  EXPECT_EQ(bad_blob(past_pool),
            where + ": its trie points past its replacement strings or inside a character (offset 5000)");
  // A trie whose root leads past its end.
  std::string short_trie;
  put_u32(short_trie, 8);
  put_u32(short_trie, (1000u << 10));
  put_u32(short_trie, 0);
  EXPECT_EQ(bad_blob(short_trie), where + ": its trie leads past its end (unit 1001)");
  std::string bad_pool = blob.substr(0, blob.size() - 1) + "\xFF";
  EXPECT_EQ(bad_blob(bad_pool), where + ": its replacement strings are not valid UTF-8");
  const nlohmann::json j = {{"type", "Precompiled"}, {"precompiled_charsmap", "!!"}};
  try {
    PrecompiledNormalizer::from_json(JsonFields(j, "tokenizer.json", "normalizer"));
    ADD_FAILURE() << "no error";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), where + " is not base64");
  }
}

}  // namespace
}  // namespace bertpt::tokenizer
