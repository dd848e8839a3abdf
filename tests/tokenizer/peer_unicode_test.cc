// Exhaustive conformance of the normalizer and pre-tokenizer with Hugging Face: every Unicode scalar
// value, as 'a' + c + 'b', in all four normalizer modes. This pins HF's mixed Unicode vintages
// (categories 8.0, NFD 9.0, lowercase 17.0) completely for single characters.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "peer.h"
#include "text/utf8.h"
#include "tokenizer/normalizers/bert.h"
#include "tokenizer/pre_tokenizers/bert.h"

namespace bertpt::tokenizer {
namespace {

using testing::run_peer;

std::string hex(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04X", cp);
  return buf;
}

std::string with_ab(uint32_t cp) {
  std::string s = "a";
  text::append_utf8(s, cp);
  s += 'b';
  return s;
}

// "HEX<TAB>rest" lines -> map
std::map<uint32_t, std::string> parse_table(const std::string& out) {
  std::map<uint32_t, std::string> table;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    table[std::stoul(line.substr(0, tab), nullptr, 16)] = line.substr(tab + 1);
  }
  return table;
}

std::string code_points(std::string_view utf8) {
  std::string r;
  const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
  for (size_t i = 0; i < utf8.size();) {
    uint32_t cp;
    size_t len;
    if (p[i] < 0x80) {
      cp = p[i];
      len = 1;
    } else if (p[i] < 0xE0) {
      cp = ((p[i] & 0x1F) << 6) | (p[i + 1] & 0x3F);
      len = 2;
    } else if (p[i] < 0xF0) {
      cp = ((p[i] & 0x0F) << 12) | ((p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F);
      len = 3;
    } else {
      cp = ((p[i] & 0x07) << 18) | ((p[i + 1] & 0x3F) << 12) | ((p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F);
      len = 4;
    }
    if (!r.empty()) r += ' ';
    r += hex(cp);
    i += len;
  }
  return r;
}

void check_normalizer_mode(const std::string& mode, bool lowercase, bool strip_accents) {
  BERTPT_REQUIRE_PEER();
  const auto peer = parse_table(run_peer("unicode_table.py normalizer " + mode));
  ASSERT_GT(peer.size(), 100000u) << "peer produced a truncated table";
  NormalizerOptions opt;
  opt.lowercase = lowercase;
  opt.strip_accents = strip_accents;
  const BertNormalizer norm(opt);
  size_t mismatches = 0;
  std::string out;
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string in = with_ab(cp);
    out.clear();
    norm.normalize(in, out);
    const auto it = peer.find(cp);
    const std::string expected = it == peer.end() ? code_points(in) : it->second;
    const std::string got = code_points(out);
    if (got != expected && ++mismatches <= 20) {
      ADD_FAILURE() << mode << " U+" << hex(cp) << ": bertpt [" << got << "], HF [" << expected << "]";
    }
  }
  EXPECT_EQ(mismatches, 0u) << mode;
}

TEST(PeerUnicode, NormalizerLowercaseStripAccents) { check_normalizer_mode("lowercase", true, true); }
TEST(PeerUnicode, NormalizerCased) { check_normalizer_mode("cased", false, false); }
TEST(PeerUnicode, NormalizerLowercaseKeepAccents) { check_normalizer_mode("lowercase-keep-accents", true, false); }
TEST(PeerUnicode, NormalizerCasedStripAccents) { check_normalizer_mode("cased-strip-accents", false, true); }

TEST(PeerUnicode, PreTokenizer) {
  BERTPT_REQUIRE_PEER();
  const auto peer = parse_table(run_peer("unicode_table.py pretokenizer"));
  ASSERT_GT(peer.size(), 500u);
  size_t mismatches = 0;
  std::vector<std::string_view> words;
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string in = with_ab(cp);
    words.clear();
    bert_pre_tokenize(in, words);
    std::string got;
    if (words.size() == 2 && words[0] == "a" && words[1] == "b") {
      got = "space";
    } else if (words.size() == 3 && words[0] == "a" && words[2] == "b") {
      got = "punct";
    } else if (words.size() != 1 || words[0] != in) {
      got = "other";
    }
    const auto it = peer.find(cp);
    const std::string expected = it == peer.end() ? "" : it->second;
    if (got != expected && ++mismatches <= 20) {
      ADD_FAILURE() << "U+" << hex(cp) << ": bertpt '" << got << "', HF '" << expected << "'";
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace bertpt::tokenizer
