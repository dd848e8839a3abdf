// BertNormalizer, one test per rule (normalizer.h, docs/hf-compat.md), with exact expected strings.
#include "tokenizer/normalizers/bert.h"

#include <gtest/gtest.h>

namespace bertpt::tokenizer {
namespace {

std::string uncased(std::string_view s) { return BertNormalizer().normalize(s); }

std::string cased(std::string_view s) {
  NormalizerOptions o;
  o.lowercase = false;
  return BertNormalizer(o).normalize(s);
}

std::string with(std::string_view s, bool clean, bool chinese, std::optional<bool> strip, bool lower) {
  return BertNormalizer(NormalizerOptions{clean, chinese, strip, lower}).normalize(s);
}

TEST(Normalizer, CleanTextDeletesNulReplacementAndControls) {
  EXPECT_EQ(cased(std::string("a\0b", 3)), "ab");
  EXPECT_EQ(cased("a\xEF\xBF\xBD"
                  "b"),
            "ab");  // U+FFFD
  EXPECT_EQ(cased("a\x01\x1F\x7F"
                  "b"),
            "ab");  // Cc
  EXPECT_EQ(cased("a\xC2\xAD"
                  "b"),
            "ab");  // U+00AD soft hyphen (Cf)
  EXPECT_EQ(cased("a\xE2\x80\x8B"
                  "b"),
            "ab");  // U+200B zero width space (Cf)
  EXPECT_EQ(cased("a\xEF\xBB\xBF"
                  "b"),
            "ab");  // U+FEFF BOM (Cf)
  EXPECT_EQ(cased("a\xEE\x80\x80"
                  "b"),
            "ab");  // U+E000 private use (Co)
}

TEST(Normalizer, CleanTextDeletesBeforeMappingWhitespace) {
  // U+000B, U+000C and U+0085 are Cc: deleted, not turned into spaces.
  EXPECT_EQ(cased("a\x0B"
                  "b\x0C"
                  "c\xC2\x85"
                  "d"),
            "abcd");
  // \t \n \r are whitespace, not control.
  EXPECT_EQ(cased("a\tb\nc\rd"), "a b c d");
}

TEST(Normalizer, CleanTextMapsUnicodeWhitespaceToSpace) {
  EXPECT_EQ(cased("a\xC2\xA0"
                  "b"),
            "a b");  // U+00A0
  EXPECT_EQ(cased("a\xE3\x80\x80"
                  "b"),
            "a b");  // U+3000 ideographic space
  EXPECT_EQ(cased("a\xE2\x80\xA8"
                  "b"),
            "a b");  // U+2028 line separator (Zl)
  EXPECT_EQ(cased("a\xE2\x80\xA9"
                  "b"),
            "a b");  // U+2029
  EXPECT_EQ(cased("a\xE1\x9A\x80"
                  "b"),
            "a b");  // U+1680 ogham space mark
  EXPECT_EQ(cased("a\xE1\xA0\x8E"
                  "b"),
            "ab");  // U+180E: Cf since Unicode 6.3, deleted
}

TEST(Normalizer, UnassignedInUnicode8IsNotControl) {
  // U+2066 (Cf, Unicode 6.3) is deleted; U+1BCA0 (Cf, Unicode 7.0) too; U+13430 (Cf, 12.0) is
  // unassigned for HF's Unicode 8.0 tables and stays.
  EXPECT_EQ(cased("a\xE2\x81\xA6"
                  "b"),
            "ab");
  EXPECT_EQ(cased("a\xF0\x9B\xB2\xA0"
                  "b"),
            "ab");
  EXPECT_EQ(cased("a\xF0\x93\x90\xB0"
                  "b"),
            "a\xF0\x93\x90\xB0"
            "b");
}

TEST(Normalizer, ChineseCharsGetSpaces) {
  EXPECT_EQ(cased("a\xE4\xB8\xAD"
                  "b"),
            "a \xE4\xB8\xAD b");                               // U+4E2D
  EXPECT_EQ(cased("\xE3\x90\x80"), " \xE3\x90\x80 ");          // U+3400
  EXPECT_EQ(cased("\xF0\xAB\xA0\xA0"), "\xF0\xAB\xA0\xA0");    // U+2B820: not in HF's list
  EXPECT_EQ(cased("\xF0\xAB\xA4\xA0"), " \xF0\xAB\xA4\xA0 ");  // U+2B920: in it
  EXPECT_EQ(cased("\xE3\x81\x82"), "\xE3\x81\x82");            // hiragana: no spaces
  EXPECT_EQ(with("a\xE4\xB8\xAD"
                 "b",
                 true, false, false, false),
            "a\xE4\xB8\xAD"
            "b");
}

TEST(Normalizer, CompatibilityIdeographIsPaddedThenDecomposed) {
  // U+F900 -> NFD U+8C48 when stripping accents; the spaces come first.
  EXPECT_EQ(uncased("\xEF\xA4\x80"), " \xE8\xB1\x88 ");
  EXPECT_EQ(cased("\xEF\xA4\x80"), " \xEF\xA4\x80 ");
}

TEST(Normalizer, StripAccentsIsNfdMinusMn) {
  EXPECT_EQ(uncased("H\xC3\xA9llo"), "hello");  // é
  EXPECT_EQ(uncased("e\xCC\x81"), "e");         // e + U+0301
  EXPECT_EQ(uncased("\xC3\x85ngstr\xC3\xB6m"), "angstrom");
  // U+0903 DEVANAGARI SIGN VISARGA is Mc: kept.
  EXPECT_EQ(uncased("\xE0\xA4\x95\xE0\xA4\x83"), "\xE0\xA4\x95\xE0\xA4\x83");
  // Hangul syllables decompose into conjoining jamo (none of them Mn).
  EXPECT_EQ(uncased("\xED\x95\x9C"), "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB");  // 한
  EXPECT_EQ(cased("\xED\x95\x9C"), "\xED\x95\x9C");
}

TEST(Normalizer, StripAccentsFollowsLowercaseWhenUnset) {
  EXPECT_EQ(with("\xC3\x89t\xC3\xA9", true, true, std::nullopt, true), "ete");
  EXPECT_EQ(with("\xC3\x89t\xC3\xA9", true, true, std::nullopt, false), "\xC3\x89t\xC3\xA9");
  EXPECT_EQ(with("\xC3\x89t\xC3\xA9", true, true, false, true), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(with("\xC3\x89t\xC3\xA9", true, true, true, false), "Ete");
}

TEST(Normalizer, LowercaseIsFullPerCharMapping) {
  EXPECT_EQ(uncased("HeLLo WORLD"), "hello world");
  EXPECT_EQ(with("\xC4\xB0", true, true, false, true), "i\xCC\x87");           // İ -> i + U+0307
  EXPECT_EQ(uncased("\xC4\xB0"), "i");                                         // NFD first drops U+0307
  EXPECT_EQ(uncased("\xCE\xA3\xCE\x91\xCE\xA3"), "\xCF\x83\xCE\xB1\xCF\x83");  // no final sigma
  EXPECT_EQ(uncased("\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82"),
            "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");  // Привет
  EXPECT_EQ(uncased("\xEA\x9F\x8B"), "\xC9\xA4");                 // U+A7CB (Unicode 16)
  EXPECT_EQ(uncased("\xF0\x96\xBA\xA0"), "\xF0\x96\xBA\xBB");     // U+16EA0 (Unicode 17)
}

TEST(Normalizer, CategoriesAreUnicode8) {
  // U+1885 was Lo in Unicode 8.0 (Mn since 9.0): HF keeps it when stripping accents.
  EXPECT_EQ(uncased("a\xE1\xA2\x85"), "a\xE1\xA2\x85");
  // U+1734 was Mn in 8.0 (Mc since 14.0): dropped.
  EXPECT_EQ(uncased("a\xE1\x9C\xB4"), "a");
}

TEST(Normalizer, NfdIsUnicode9) {
  // U+11938 (Unicode 13) has a canonical decomposition HF's NFD does not know.
  EXPECT_EQ(uncased("\xF0\x91\xA4\xB8"), "\xF0\x91\xA4\xB8");
}

TEST(Normalizer, CanonicalOrderingOfKeptMarks) {
  // U+302E (ccc 224, Mc) and U+0F39... use two kept marks: U+1D165 (ccc 216) and U+302E (224).
  // NFD sorts a run of marks by combining class; a dropped Mn (U+0301) in between does not end it.
  const std::string a302e = "\xE3\x80\xAE", m1d165 = "\xF0\x9D\x85\xA5", acute = "\xCC\x81";
  EXPECT_EQ(uncased("x" + a302e + m1d165), "x" + m1d165 + a302e);
  EXPECT_EQ(uncased("x" + a302e + acute + m1d165), "x" + m1d165 + a302e);
  EXPECT_EQ(uncased("x" + m1d165 + a302e), "x" + m1d165 + a302e);
  // A starter ends the run; a deleted control character does not.
  EXPECT_EQ(uncased("x" + a302e + "y" + m1d165), "x" + a302e + "y" + m1d165);
  EXPECT_EQ(uncased("x" + a302e + "\x01" + m1d165), "x" + m1d165 + a302e);
  // Without strip_accents there is no NFD, so no reordering.
  EXPECT_EQ(cased("x" + a302e + m1d165), "x" + a302e + m1d165);
}

TEST(Normalizer, EverythingOffIsIdentity) {
  const std::string s = "A\x01\xE4\xB8\xAD\xC3\xA9\t\xC2\xA0Z";
  EXPECT_EQ(with(s, false, false, false, false), s);
}

TEST(Normalizer, InvalidUtf8ReadsAsReplacementChar) {
  EXPECT_EQ(cased("a\xFF"
                  "b"),
            "ab");  // U+FFFD is deleted by clean_text
  EXPECT_EQ(with("a\xFF", false, false, false, false), "a\xEF\xBF\xBD");
  EXPECT_EQ(cased("a\xE4\xB8"), "a");  // truncated sequence
}

TEST(Normalizer, AppendsToOutput) {
  std::string out = "x";
  BertNormalizer().normalize("AB", out);
  EXPECT_EQ(out, "xab");
}

}  // namespace
}  // namespace bertpt::tokenizer
