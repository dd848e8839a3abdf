// The ByteLevel pre-tokenizer and decoder (tokenizer/pre_tokenizers/byte_level.h,
// tokenizer/decoders/byte_level.h) and the character classes they use (char_classes.h). Expected
// pieces were computed by hand from the GPT-2 regex and confirmed once with tokenizers 0.23.3's
// pre_tokenizers.ByteLevel().pre_tokenize_str; the class table is compared whole with the peer.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "common/test_util.h"
#include "peer.h"
#include "text/utf8.h"
#include "tokenizer/decoders/byte_level.h"
#include "tokenizer/onig_regex.h"
#include "tokenizer/pre_tokenizers/byte_level.h"
#include "tokenizer/pre_tokenizers/char_classes.h"
#include "tokenizer/pre_tokenizers/split.h"

namespace bertpt::tokenizer {
namespace {

std::vector<std::string> words_of(const PreTokenizer& pre, const std::string& text) {
  Words words;
  words.reset(text, true);
  pre.pre_tokenize(words);
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) out.emplace_back(words[i]);
  return out;
}

std::vector<std::string> gpt2_pieces(const std::string& text) {
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  gpt2_split(text, ranges);
  std::vector<std::string> out;
  for (const auto& [b, e] : ranges) out.push_back(text.substr(b, e - b));
  return out;
}

using Strings = std::vector<std::string>;

TEST(ByteLevel, BytesCharMap) {
  // Printable bytes stand for themselves; the 68 others get U+0100.. in byte order: 0x00..0x20
  // -> U+0100..U+0120, 0x7F..0xA0 -> U+0121..U+0142, 0xAD -> U+0143.
  EXPECT_EQ(ByteLevel::byte_to_char('!'), uint32_t('!'));
  EXPECT_EQ(ByteLevel::byte_to_char('~'), uint32_t('~'));
  EXPECT_EQ(ByteLevel::byte_to_char(0xA1), 0xA1u);
  EXPECT_EQ(ByteLevel::byte_to_char(0xFF), 0xFFu);
  EXPECT_EQ(ByteLevel::byte_to_char(0x00), 0x100u);
  EXPECT_EQ(ByteLevel::byte_to_char('\n'), 0x10Au);
  EXPECT_EQ(ByteLevel::byte_to_char(' '), 0x120u);
  EXPECT_EQ(ByteLevel::byte_to_char(0x7F), 0x121u);
  EXPECT_EQ(ByteLevel::byte_to_char(0xA0), 0x142u);
  EXPECT_EQ(ByteLevel::byte_to_char(0xAD), 0x143u);
  const auto& alphabet = ByteLevel::alphabet();
  EXPECT_EQ(std::set<std::string>(alphabet.begin(), alphabet.end()).size(), 256u);
  EXPECT_EQ(alphabet[' '], "\xC4\xA0");  // Ġ
}

TEST(ByteLevel, TokensMapBackToTheirBytes) {
  std::string all_bytes, mapped, back;
  for (int b = 0; b < 256; ++b) all_bytes.push_back(char(b));
  ByteLevel::append_byte_level(all_bytes, mapped);
  ASSERT_TRUE(ByteLevel::append_token_bytes(mapped, back));
  EXPECT_EQ(back, all_bytes);
  std::string out = "kept";
  EXPECT_FALSE(ByteLevel::append_token_bytes("a\xE4\xB8\xAD", out));  // 中 is not a byte character
  EXPECT_EQ(out, "kept");
}

TEST(ByteLevel, Gpt2Split) {
  EXPECT_EQ(gpt2_pieces("Hello world"), (Strings{"Hello", " world"}));
  // A run of spaces before a word gives its last space to the word; at the end it stays whole.
  EXPECT_EQ(gpt2_pieces("  a"), (Strings{" ", " a"}));
  EXPECT_EQ(gpt2_pieces("a  "), (Strings{"a", "  "}));
  EXPECT_EQ(gpt2_pieces("x  \n y"), (Strings{"x", "  \n", " y"}));
  // A single non-space whitespace before a word is a piece of its own (\s+ after \s+(?!\S) fails).
  EXPECT_EQ(gpt2_pieces("a\n\nb"), (Strings{"a", "\n", "\n", "b"}));
  // Contractions are lowercase only; " '" is a space and a run of others.
  EXPECT_EQ(gpt2_pieces("I'm they'LL 'sam"), (Strings{"I", "'m", " they", "'", "LL", " '", "sam"}));
  EXPECT_EQ(gpt2_pieces("?'s"), (Strings{"?'", "s"}));
  EXPECT_EQ(gpt2_pieces("1,000.5 ok!!"), (Strings{"1", ",", "000", ".", "5", " ok", "!!"}));
  // U+00A0 and U+3000 are whitespace, U+001C is not (Oniguruma's \s is White_Space).
  EXPECT_EQ(gpt2_pieces("a\u00a0b"), (Strings{"a", "\u00a0", "b"}));
  EXPECT_EQ(gpt2_pieces("a\u3000\u3000b"), (Strings{"a", "\u3000", "\u3000", "b"}));
  EXPECT_EQ(gpt2_pieces("a\x1c"
                        "b"),
            (Strings{"a", "\x1c", "b"}));
  // Letters of all scripts run together; emoji are "other"; a mark is "other" too.
  EXPECT_EQ(gpt2_pieces("é中😀"), (Strings{"é中", "😀"}));
  EXPECT_EQ(gpt2_pieces("e\u0301t"), (Strings{"e", "\u0301", "t"}));
  EXPECT_EQ(gpt2_pieces(""), Strings{});
}

// The hand-written splitter against Oniguruma running HF's exact pattern, its \p{L} and \p{N}
// given HF's classes (the system's Oniguruma is older; its \s, White_Space, is the same), on random
// text drawn from tricky characters and from all of Unicode.
TEST(ByteLevel, Gpt2SplitAgreesWithOniguruma) {
  const OnigRegex regex(with_hf_letter_and_number_classes(
                            R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"),
                        "the GPT-2 pattern");
  const std::vector<uint32_t> tricky = {
      ' ',    '\t',   '\n',   '\r',  0x0B,   0x0C,    0x85,    0xA0,    0x1680,  0x2000,  0x200A, 0x2028, 0x2029,
      0x202F, 0x205F, 0x3000, 0x1C,  0x1F,   0,       0x7F,    '\'',    's',     't',     'r',    'e',    'v',
      'm',    'l',    'd',    'S',   'L',    'a',     'Z',     '0',     '9',     '!',     '?',    '_',    0xE9,
      0x4E2D, 0x301,  0xB2,   0x663, 0x2160, 0x1F600, 0x105C0, 0x1E5D0, 0x10D40, 0x11F00, 0xFEFF, 0x200D, 0xE000};
  std::mt19937 rng(2024);
  size_t differ = 0;
  std::vector<std::pair<size_t, size_t>> matches;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const size_t n = rng() % 24;
    for (size_t i = 0; i < n; ++i) {
      uint32_t cp = tricky[rng() % tricky.size()];
      if (rng() % 8 == 0) {
        do cp = rng() % 0x110000;
        while (cp >= 0xD800 && cp <= 0xDFFF);
      }
      text::append_utf8(text, cp);
    }
    std::vector<std::pair<uint32_t, uint32_t>> pieces;
    gpt2_split(text, pieces);
    regex.find_all(text, matches);
    const bool same = std::equal(
        pieces.begin(), pieces.end(), matches.begin(), matches.end(),
        [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; });
    if (!same && ++differ <= 3) ADD_FAILURE() << "differs on '" << text << "'";
  }
  EXPECT_EQ(differ, 0u);
}

TEST(ByteLevel, PreTokenizeMapsBytes) {
  const ByteLevel plain(false, true, true);
  EXPECT_EQ(words_of(plain, "Hello world"), (Strings{"Hello", "Ġworld"}));
  EXPECT_EQ(words_of(plain, "a\u00a0b"), (Strings{"a", "Âł", "b"}));
  EXPECT_EQ(words_of(plain, "é中😀"), (Strings{"Ã©ä¸Ń", "ðŁĺĢ"}));
  EXPECT_EQ(words_of(plain, "\tHello"), (Strings{"ĉ", "Hello"}));
}

TEST(ByteLevel, AddPrefixSpaceUnlessTheWordStartsWithASpace) {
  const ByteLevel prefixed(true, true, true);
  EXPECT_EQ(words_of(prefixed, "Hello world"), (Strings{"ĠHello", "Ġworld"}));
  EXPECT_EQ(words_of(prefixed, " Hello"), (Strings{"ĠHello"}));
  // Only ' ' counts: a tab gets the space too, which then stands alone.
  EXPECT_EQ(words_of(prefixed, "\tHello"), (Strings{"Ġ", "ĉ", "Hello"}));
  EXPECT_EQ(words_of(prefixed, ""), Strings{});
}

TEST(ByteLevel, WithoutRegexEachWordIsOnePiece) {
  const ByteLevel no_regex(true, true, false);
  EXPECT_EQ(words_of(no_regex, "Hello world!\n"), (Strings{"ĠHelloĠworld!Ċ"}));
  // Each incoming word gets its own prefix (as after a Split).
  Words words;
  const std::string text = "ab cd";
  words.reset(text, true);
  words.spans = {{0, 2, false, true}, {2, 5, false, false}};
  no_regex.pre_tokenize(words);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0], "Ġab");
  EXPECT_EQ(words[1], "Ġcd");
  EXPECT_TRUE(words.spans[0].at_origin);
  EXPECT_FALSE(words.spans[1].at_origin);
}

TEST(ByteLevel, Json) {
  const nlohmann::json j = nlohmann::json::parse(R"({"type": "ByteLevel", "add_prefix_space": false,
      "trim_offsets": true})");
  const auto pre = ByteLevel::from_json(JsonFields(j, "tokenizer.json", "pre_tokenizer"));
  EXPECT_FALSE(pre->add_prefix_space());
  EXPECT_TRUE(pre->use_regex());  // HF's default
  EXPECT_EQ(pre->to_json().dump(),
            R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})");
  const nlohmann::json missing = nlohmann::json::parse(R"({"type": "ByteLevel", "add_prefix_space": false})");
  EXPECT_EQ(testing::error_of([&] { ByteLevel::from_json(JsonFields(missing, "tokenizer.json", "pre_tokenizer")); }),
            "tokenizer.json: field \"pre_tokenizer.trim_offsets\" is missing");
  const auto decoder = ByteLevelDecoder::from_json(JsonFields(j, "tokenizer.json", "decoder"));
  EXPECT_EQ(decoder->to_json().dump(),
            R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})");
}

TEST(ByteLevelDecoder, JoinsAndMapsBack) {
  const ByteLevelDecoder decoder(true, true, true);
  std::vector<std::string> tokens = {"Hello", "Ġworld", "Ċ", "Ã©"};
  decoder.decode_chain(tokens);
  EXPECT_EQ(tokens, (Strings{"Hello world\né"}));
  // A token with a character outside the 256 is kept as it is.
  tokens = {"中", "Ġa"};
  decoder.decode_chain(tokens);
  EXPECT_EQ(tokens, (Strings{"中 a"}));
  tokens = {};
  decoder.decode_chain(tokens);
  EXPECT_EQ(tokens, (Strings{""}));
}

TEST(ByteLevelDecoder, InvalidUtf8AsRustFromUtf8Lossy) {
  const auto lossy = [](const std::string& bytes) {
    std::string out;
    append_utf8_lossy(bytes, out);
    return out;
  };
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(lossy("a\xC3"), "a" + r);  // truncated
  EXPECT_EQ(lossy("\xF0\x9F\x98"
                  "a"),
            r + "a");  // three bytes of a four-byte character: one U+FFFD
  EXPECT_EQ(lossy("\xE0\x80"
                  "a"),
            r + r + "a");                                          // E0 needs A0..BF next: both bytes replaced
  EXPECT_EQ(lossy("\xED\xA0\x80"), r + r + r);                     // a surrogate
  EXPECT_EQ(lossy("\xC0\xAF\xF5\xFF"), r + r + r + r);             // bytes no character starts with
  const std::string valid("\xE4\xB8\xAD\x00\xF0\x9F\x98\x80", 8);  // NUL is kept
  EXPECT_EQ(lossy(valid), valid);
  EXPECT_EQ(lossy("\xF4\x90\x80\x80"), r + r + r + r);  // past U+10FFFF
  const ByteLevelDecoder decoder(false, false, true);
  std::vector<std::string> tokens = {"Ã", "a"};  // the byte C3 then 'a'
  decoder.decode_chain(tokens);
  EXPECT_EQ(tokens, (Strings{r + "a"}));
}

TEST(CharClasses, SpotChecks) {
  using namespace char_classes;
  EXPECT_EQ(lookup('a'), kLetter | kWord);
  EXPECT_EQ(lookup('7'), kNumber | kWord | kNumeric);
  EXPECT_EQ(lookup(' '), kSpace);
  EXPECT_EQ(lookup(0x85), kSpace);
  EXPECT_EQ(lookup(0xA0), kSpace);
  EXPECT_EQ(lookup(0x3000), kSpace);
  EXPECT_EQ(lookup(0x1C), 0);                             // a control, not White_Space
  EXPECT_EQ(lookup('_'), kWord);                          // \w has connector punctuation
  EXPECT_EQ(lookup(0x301), kWord);                        // a combining mark: \w, but not L
  EXPECT_EQ(lookup(0xB2), kNumber | kNumeric);            // superscript two: No, not \w (\w has Nd only)
  EXPECT_EQ(lookup(0x2160), kNumber | kWord | kNumeric);  // roman numeral one (Nl, Alphabetic)
  EXPECT_EQ(lookup(0x105C0) & kLetter, kLetter);          // Todhri, Unicode 16.0: HF's Oniguruma knows it
  EXPECT_EQ(lookup(0x110000), 0);
}

// The checked-in table is exactly what the pinned tokenizers answers for every code point.
TEST(CharClasses, PeerTableIsCurrent) {
  BERTPT_REQUIRE_PEER();
  const std::string generated = testing::run_peer("../../scripts/gen_pretokenizer_classes.py");
  EXPECT_EQ(generated, testing::slurp(testing::source_dir() + "/src/tokenizer/pre_tokenizers/char_classes_data.inc"))
      << "regenerate with scripts/gen_pretokenizer_classes.py";
}

}  // namespace
}  // namespace bertpt::tokenizer
