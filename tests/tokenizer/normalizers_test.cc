// The normalizers of sentencepiece-style tokenizer.json files: NFC/NFD/NFKC/NFKD, StripAccents,
// Lowercase, Strip, Nmt, Replace, Prepend, Sequence, ByteLevel (tokenizer/normalizers/). Expected
// texts are Hugging Face tokenizers 0.23.3's normalize_str.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "tokenizer/normalizers/byte_level.h"
#include "tokenizer/normalizers/lowercase.h"
#include "tokenizer/normalizers/nmt.h"
#include "tokenizer/normalizers/prepend.h"
#include "tokenizer/normalizers/replace.h"
#include "tokenizer/normalizers/sequence.h"
#include "tokenizer/normalizers/strip.h"
#include "tokenizer/normalizers/strip_accents.h"
#include "tokenizer/normalizers/unicode.h"

namespace bertpt::tokenizer {
namespace {

std::string run(const Normalizer& n, std::string_view text) {
  std::string out = "<";  // normalize() appends
  n.normalize(text, out);
  return out.substr(1);
}

std::string nf(UnicodeNormalizer::Form form, std::string_view text) { return run(UnicodeNormalizer(form), text); }

// The normalizer a tokenizer.json object describes, through the factory.
NormalizerPtr read(const std::string& text) {
  static std::vector<std::unique_ptr<nlohmann::json>> keep;  // JsonValue refers to its JSON
  keep.push_back(std::make_unique<nlohmann::json>(nlohmann::json::parse(text)));
  return read_normalizer(JsonValue(*keep.back(), "tokenizer.json", "normalizer"));
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const BadInput& e) {
    return e.what();
  }
  return "";
}

using Form = UnicodeNormalizer::Form;

TEST(UnicodeNormalizer, TheFourForms) {
  const std::string e_acute = "e\xCC\x81", precomposed = "\xC3\xA9";
  EXPECT_EQ(nf(Form::kNFC, e_acute), precomposed);
  EXPECT_EQ(nf(Form::kNFD, precomposed), e_acute);
  EXPECT_EQ(nf(Form::kNFKC, "\xEF\xAC\x81"), "fi");  // U+FB01
  EXPECT_EQ(nf(Form::kNFC, "\xEF\xAC\x81"), "\xEF\xAC\x81");
  EXPECT_EQ(nf(Form::kNFKD, "\xE2\x91\xA0"), "1");  // U+2460
  EXPECT_EQ(nf(Form::kNFD, "\xE2\x91\xA0"), "\xE2\x91\xA0");
  EXPECT_EQ(nf(Form::kNFC, "plain ascii"), "plain ascii");
}

TEST(UnicodeNormalizer, CanonicalOrderAndHangul) {
  // U+1E0B (d dot above) + U+0323 (dot below, class 220) -> d, 0323, 0307 (class 230).
  EXPECT_EQ(nf(Form::kNFD, "\xE1\xB8\x8B\xCC\xA3"), "d\xCC\xA3\xCC\x87");
  EXPECT_EQ(nf(Form::kNFC, "\xE1\xB8\x8B\xCC\xA3"), "\xE1\xB8\x8D\xCC\x87");
  // a + U+0345 (240) + U+0301 (230) + U+0323 (220).
  EXPECT_EQ(nf(Form::kNFD, "a\xCD\x85\xCC\x81\xCC\xA3"), "a\xCC\xA3\xCC\x81\xCD\x85");
  EXPECT_EQ(nf(Form::kNFC, "a\xCD\x85\xCC\x81\xCC\xA3"), "\xE1\xBA\xA1\xCC\x81\xCD\x85");
  EXPECT_EQ(nf(Form::kNFD, "\xEA\xB0\x81"), "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8");  // U+AC01
  EXPECT_EQ(nf(Form::kNFC, "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8"), "\xEA\xB0\x81");
}

TEST(UnicodeNormalizer, CodePointsAfterUnicode9AreLeftAlone) {
  // U+11938 DIVES AKURU VOWEL SIGN O (13.0) = U+11935 U+11930 today; HF's tables predate it.
  EXPECT_EQ(nf(Form::kNFD, "\xF0\x91\xA4\xB8"), "\xF0\x91\xA4\xB8");
  EXPECT_EQ(nf(Form::kNFC, "\xF0\x91\xA4\xB5\xF0\x91\xA4\xB0"), "\xF0\x91\xA4\xB5\xF0\x91\xA4\xB0");
  EXPECT_EQ(nf(Form::kNFKC, "\xE3\x8B\xBF"), "\xE3\x8B\xBF");  // U+32FF SQUARE ERA NAME REIWA (12.1)
  EXPECT_TRUE(assigned_in_unicode_9(0x1F6F6));
  EXPECT_FALSE(assigned_in_unicode_9(0x1F6F7));
  EXPECT_FALSE(assigned_in_unicode_9(0x0378));
}

TEST(StripAccents, RemovesUnicode9CombiningMarks) {
  const StripAccentsNormalizer n;
  EXPECT_EQ(run(n, "e\xCC\x81"), "e");
  EXPECT_EQ(run(n, "caf\xC3\xA9"), "caf\xC3\xA9");  // nothing decomposes it
  EXPECT_EQ(run(n,
                "\xE0\xA4\x83"
                "a"),
            "a");                                             // U+0903, Mc
  EXPECT_EQ(run(n, "n\xCC\x83\xE2\x83\x9D"), "n");            // U+20DD, Me
  EXPECT_EQ(run(n, "\xE1\xB3\xB2x"), "x");                    // U+1CF2: Mc in 9.0 (Lo since 10.0)
  EXPECT_EQ(run(n, "\xF0\x91\x87\x89"), "\xF0\x91\x87\x89");  // U+111C9: Po in 9.0
}

TEST(Lowercase, RustToLowercase) {
  const LowercaseNormalizer n;
  EXPECT_EQ(run(n, "HeLLo"), "hello");
  EXPECT_EQ(run(n, "\xC4\xB0"), "i\xCC\x87");                 // U+0130 -> i + U+0307
  EXPECT_EQ(run(n, "\xCE\xA3\xCE\x91"), "\xCF\x83\xCE\xB1");  // no final sigma
  EXPECT_EQ(run(n, "\xE1\xBA\x9E"), "\xC3\x9F");              // U+1E9E -> ß
  EXPECT_EQ(run(n, "\xF0\x90\x90\x80"), "\xF0\x90\x90\xA8");  // U+10400
}

TEST(Strip, UnicodeWhitespaceOnEitherSide) {
  EXPECT_EQ(run(StripNormalizer(true, true), "  a b \t\n"), "a b");
  EXPECT_EQ(run(StripNormalizer(true, true), "\xE3\x80\x80\xC2\xA0x\xC2\x85"), "x");  // U+3000 U+00A0, U+0085
  EXPECT_EQ(run(StripNormalizer(true, true), "\xE2\x80\x8Bx\xE2\x80\x8B"), "\xE2\x80\x8Bx\xE2\x80\x8B");  // U+200B
  EXPECT_EQ(run(StripNormalizer(true, false), "  a  "), "a  ");
  EXPECT_EQ(run(StripNormalizer(false, true), "  a  "), "  a");
  EXPECT_EQ(run(StripNormalizer(true, true), "   "), "");
}

TEST(Nmt, RemovesControlsAndSpacesOthers) {
  const NmtNormalizer n;
  EXPECT_EQ(run(n,
                "a\x01"
                "b\x0B"
                "c\x7F"
                "d"),
            "abcd");
  EXPECT_EQ(run(n,
                "a\tb\nc\xE2\x80\x8B"
                "d\xEF\xBB\xBF"
                "e\xE2\x96\x81"
                "f\xEF\xBF\xBD"),
            "a b c d e f ");
  EXPECT_EQ(run(n, "\xC2\x8F\xC2\x9F\xC2\x85"), "\xC2\x85");
}

TEST(Replace, LiteralAndRegexPatterns) {
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(false, " ", "\xE2\x96\x81")), "a b  c"),
            "a\xE2\x96\x81"
            "b\xE2\x96\x81\xE2\x96\x81"
            "c");
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(false, ".", "!")), "a.b"), "a!b");
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(true, " {2,}", " ")), "a  b     c d"), "a b c d");
}

TEST(Replace, EmptyMatchesAsTheOnigCrateFindsThem) {
  // An empty match right after a match is skipped; a later one is kept.
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(true, "a|(?=c)", "X")), "abc"), "XbXc");
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(true, "x*", "-")), "ab"), "-a-b-");
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(true, "(?<=a)", "|")), "aab"), "a|a|b");
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(false, "", "X")), "ab"), "XaXbX");
  EXPECT_EQ(run(ReplaceNormalizer(Replacement(false, "", "X")), ""), "");  // nothing matches in ""
}

TEST(PrependSequenceByteLevel, Normalize) {
  EXPECT_EQ(run(PrependNormalizer("\xE2\x96\x81"), "ab"),
            "\xE2\x96\x81"
            "ab");
  EXPECT_EQ(run(PrependNormalizer("\xE2\x96\x81"), ""), "");
  const NormalizerSequence seq({std::make_shared<UnicodeNormalizer>(Form::kNFKD),
                                std::make_shared<StripAccentsNormalizer>(), std::make_shared<LowercaseNormalizer>()});
  EXPECT_EQ(run(seq,
                "\xC3\x87"
                "a \xEF\xBC\xB6"
                "a"),
            "ca va");
  EXPECT_EQ(run(NormalizerSequence({}), "Same"), "Same");
  EXPECT_EQ(run(ByteLevelNormalizer(), "a b\xC3\xA9\n"),
            "a\xC4\xA0"
            "b\xC3\x83\xC2\xA9\xC4\x8A");
}

TEST(KeepsOrigin, FalseOnlyWhereHfDropsTheLeadingCharacters) {
  // What Metaspace's prepend_scheme "first" asks: HF aligns the first normalized character with an
  // original offset > 0 when the characters before it were dropped.
  EXPECT_FALSE(StripNormalizer(true, true).keeps_origin("  a"));
  EXPECT_TRUE(StripNormalizer(false, true).keeps_origin("  a"));
  EXPECT_TRUE(StripNormalizer(true, true).keeps_origin("a  "));
  EXPECT_FALSE(
      NmtNormalizer().keeps_origin("\x01"
                                   "a"));
  EXPECT_TRUE(NmtNormalizer().keeps_origin("\ta"));  // mapped to ' ', not dropped
  EXPECT_TRUE(NmtNormalizer().keeps_origin(std::string("\0a", 2)));
  EXPECT_FALSE(
      StripAccentsNormalizer().keeps_origin("\xCC\x81"
                                            "a"));
  EXPECT_TRUE(StripAccentsNormalizer().keeps_origin("a\xCC\x81"));
  EXPECT_FALSE(ReplaceNormalizer(Replacement(false, "x", "")).keeps_origin("xa"));
  EXPECT_TRUE(ReplaceNormalizer(Replacement(false, "x", "z")).keeps_origin("xa"));
  EXPECT_FALSE(ReplaceNormalizer(Replacement(false, "xy", "z")).keeps_origin("xya"));  // z takes y's place
  EXPECT_TRUE(ReplaceNormalizer(Replacement(true, "x*", "z")).keeps_origin("a"));      // an empty match
  EXPECT_FALSE(ReplaceNormalizer(Replacement(true, " {2,}", "\xE2\x96\x81")).keeps_origin("   a"));
  EXPECT_TRUE(UnicodeNormalizer(Form::kNFKC)
                  .keeps_origin("\xE3\x80\x80"
                                "a"));
  const NormalizerSequence seq(
      {std::make_shared<UnicodeNormalizer>(Form::kNFKC), std::make_shared<StripNormalizer>(true, true)});
  EXPECT_FALSE(
      seq.keeps_origin("\xE3\x80\x80"
                       "a"));  // NFKC makes U+3000 a space, Strip drops it
  std::string out;
  EXPECT_FALSE(
      seq.normalize_keeping_origin("\xE3\x80\x80"
                                   "a",
                                   out));
  EXPECT_EQ(out, "a");
  EXPECT_TRUE(seq.keeps_origin("a "));
}

TEST(NormalizerJson, ReadsAndWritesEveryKind) {
  const char* kinds[] = {
      R"({"type":"NFC"})",
      R"({"type":"NFD"})",
      R"({"type":"NFKC"})",
      R"({"type":"NFKD"})",
      R"({"type":"StripAccents"})",
      R"({"type":"Lowercase"})",
      R"({"type":"Nmt"})",
      R"({"type":"ByteLevel"})",
      R"({"type":"Strip","strip_left":false,"strip_right":true})",
      R"({"type":"Prepend","prepend":"_"})",
      R"({"type":"Replace","pattern":{"String":" "},"content":"_"})",
      R"({"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "})",
      R"({"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"}]})",
  };
  for (const char* kind : kinds) EXPECT_EQ(read(kind)->to_json().dump(), kind);
  EXPECT_EQ(run(*read(R"({"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Lowercase"}]})"), "\xEF\xBC\xA1"),
            "a");
}

TEST(NormalizerJson, BadOptionsNameTheField) {
  EXPECT_EQ(error_of(R"({"type":"Strip","strip_left":true})"),
            "tokenizer.json: field \"normalizer.strip_right\" is missing");
  EXPECT_EQ(error_of(R"({"type":"Prepend"})"), "tokenizer.json: field \"normalizer.prepend\" is missing");
  EXPECT_EQ(error_of(R"({"type":"Replace","pattern":{"String":"a","Regex":"b"},"content":""})"),
            "tokenizer.json: field \"normalizer.pattern\" is not {\"String\": ...} or {\"Regex\": ...}");
  EXPECT_EQ(error_of(R"({"type":"Replace","pattern":{"String":"a"}})"),
            "tokenizer.json: field \"normalizer.content\" is missing");
  EXPECT_EQ(error_of(R"({"type":"Replace","pattern":{"Regex":"("},"content":""})"),
            "tokenizer.json: field \"normalizer.pattern.Regex\": the regular expression '(' does not compile: end "
            "pattern with unmatched parenthesis");
  EXPECT_EQ(error_of(R"({"type":"Sequence"})"), "tokenizer.json: field \"normalizer.normalizers\" is missing");
  EXPECT_NE(error_of(R"({"type":"Sequence","normalizers":[{"type":"Nope"}]})")
                .find("tokenizer.json: field \"normalizer.normalizers[0].type\" is 'Nope'"),
            std::string::npos);
}

}  // namespace
}  // namespace bertpt::tokenizer
