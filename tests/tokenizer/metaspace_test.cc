// The Metaspace pre-tokenizer and decoder (pre_tokenizers/metaspace.h, decoders/metaspace.h).
// Expected words and texts are Hugging Face tokenizers 0.23.3's (pre_tokenize_str, decode).
#include "tokenizer/pre_tokenizers/metaspace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "tokenizer/decoders/metaspace.h"

namespace bertpt::tokenizer {
namespace {

const std::string kBar = "\xE2\x96\x81";  // U+2581 LOWER ONE EIGHTH BLOCK

MetaspaceOptions options(PrependScheme scheme = PrependScheme::kAlways, bool split = true, std::string rep = kBar) {
  MetaspaceOptions o;
  o.replacement = std::move(rep);
  o.prepend_scheme = scheme;
  o.split = split;
  return o;
}

std::vector<std::string> words_of(Words& w) {
  std::vector<std::string> out;
  for (size_t i = 0; i < w.size(); ++i) out.emplace_back(w[i]);
  return out;
}

std::vector<std::string> split(const MetaspaceOptions& o, std::string_view text, bool at_origin = true) {
  Words w;
  w.reset(text, at_origin);
  MetaspacePreTokenizer(o).pre_tokenize(w);
  return words_of(w);
}

std::string decode(const MetaspaceOptions& o, std::vector<std::string> tokens) {
  MetaspaceDecoder(o).decode_chain(tokens);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

using V = std::vector<std::string>;

TEST(Metaspace, SpacesBecomeTheReplacementWhichStartsEachWord) {
  EXPECT_EQ(split(options(), "Hello  world "), (V{kBar + "Hello", kBar, kBar + "world", kBar}));
  EXPECT_EQ(split(options(), "   "), (V{kBar, kBar, kBar}));
  EXPECT_EQ(split(options(), ""), V{});
}

TEST(Metaspace, NothingIsPrependedBeforeASpaceOrTheReplacement) {
  EXPECT_EQ(split(options(), " hi"), (V{kBar + "hi"}));
  EXPECT_EQ(split(options(), kBar + "hi there"), (V{kBar + "hi", kBar + "there"}));
}

TEST(Metaspace, PrependSchemes) {
  EXPECT_EQ(split(options(PrependScheme::kFirst), "a b"), (V{kBar + "a", kBar + "b"}));
  EXPECT_EQ(split(options(PrependScheme::kFirst), "a b", false), (V{"a", kBar + "b"}));
  EXPECT_EQ(split(options(PrependScheme::kAlways), "a b", false), (V{kBar + "a", kBar + "b"}));
  EXPECT_EQ(split(options(PrependScheme::kNever), "a b c"), (V{"a", kBar + "b", kBar + "c"}));
}

TEST(Metaspace, FirstPrependsOnlyToTheWordAtTheOrigin) {
  // HF: Sequence([WhitespaceSplit(), Metaspace(prepend_scheme="first")]) on "hello big world".
  Words w;
  w.reset("hello big world", true);
  w.spans = {{0, 5, false, true}, {6, 9, false, false}, {10, 15, false, false}};
  MetaspacePreTokenizer(options(PrependScheme::kFirst)).pre_tokenize(w);
  EXPECT_EQ(words_of(w), (V{kBar + "hello", "big", "world"}));
  EXPECT_TRUE(w.spans[0].at_origin);
  EXPECT_FALSE(w.spans[1].at_origin);
}

TEST(Metaspace, WithoutSplitTheWordStaysWhole) {
  EXPECT_EQ(split(options(PrependScheme::kAlways, false), "a  b"), (V{kBar + "a" + kBar + kBar + "b"}));
  EXPECT_EQ(split(options(PrependScheme::kNever, false), "ab"), (V{"ab"}));
}

TEST(Metaspace, OtherReplacements) {
  EXPECT_EQ(split(options(PrependScheme::kAlways, true, "_"), "a b_c"), (V{"_a", "_b", "_c"}));
  EXPECT_EQ(split(options(PrependScheme::kAlways, true, " "), "a b"), (V{" a", " b"}));
}

TEST(Metaspace, WordsInTheArenaAreRewrittenToo) {
  Words w;
  w.reset("x", true);
  w.spans.clear();
  w.push_bytes("a b", true, w.spans);
  MetaspacePreTokenizer(options()).pre_tokenize(w);
  EXPECT_EQ(words_of(w), (V{kBar + "a", kBar + "b"}));
}

TEST(MetaspaceDecoder, ReplacementBecomesSpaceAndTheFirstTokenLosesAllOfIt) {
  EXPECT_EQ(decode(options(), {kBar + "Hello", kBar + "wor", "ld" + kBar + kBar + "x"}), "Hello world  x");
  EXPECT_EQ(decode(options(PrependScheme::kFirst), {kBar + "a" + kBar + "b", kBar + "c"}), "ab c");
  EXPECT_EQ(decode(options(PrependScheme::kNever), {kBar + "Hello", kBar + "world"}), " Hello world");
  EXPECT_EQ(decode(options(PrependScheme::kAlways, true, "_"), {"_a_", "_b"}), "a b");
  EXPECT_EQ(decode(options(), {}), "");
}

TEST(Metaspace, ReadsAndWritesTokenizerJson) {
  auto read = [](const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text);
    return MetaspaceOptions::from_json(JsonFields(j, "tokenizer.json", "pre_tokenizer")).to_json().dump();
  };
  EXPECT_EQ(read(R"({"type": "Metaspace", "replacement": "_", "prepend_scheme": "first", "split": false})"),
            R"({"type":"Metaspace","replacement":"_","prepend_scheme":"first","split":false})");
  // The legacy form: add_prefix_space and str_rep, no prepend_scheme or split.
  EXPECT_EQ(read(R"({"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": true, "str_rep": "\u2581"})"),
            "{\"type\":\"Metaspace\",\"replacement\":\"" + kBar + "\",\"prepend_scheme\":\"always\",\"split\":true}");
  EXPECT_EQ(read(R"({"type": "Metaspace", "replacement": "_", "add_prefix_space": false, "prepend_scheme": "never"})"),
            R"({"type":"Metaspace","replacement":"_","prepend_scheme":"never","split":true})");
}

TEST(Metaspace, BadOptionsNameTheField) {
  auto read = [](const std::string& text) -> std::string {
    try {
      const nlohmann::json j = nlohmann::json::parse(text);
      MetaspaceOptions::from_json(JsonFields(j, "tokenizer.json", "pre_tokenizer"));
    } catch (const BadInput& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(read(R"({"replacement": "ab"})"),
            "tokenizer.json: field \"pre_tokenizer.replacement\" is 'ab', expected one character");
  EXPECT_EQ(read(R"({"replacement": ""})"),
            "tokenizer.json: field \"pre_tokenizer.replacement\" is '', expected one character");
  EXPECT_EQ(read(R"({})"), "tokenizer.json: field \"pre_tokenizer.replacement\" is missing");
  EXPECT_EQ(read(R"({"replacement": "_", "prepend_scheme": "First"})"),
            "tokenizer.json: field \"pre_tokenizer.prepend_scheme\" is 'First', expected \"always\", \"first\" or "
            "\"never\"");
  EXPECT_EQ(read(R"({"replacement": "_", "add_prefix_space": false})"),
            "tokenizer.json: field \"pre_tokenizer.add_prefix_space\" is false, which contradicts prepend_scheme "
            "\"always\"");
}

}  // namespace
}  // namespace bertpt::tokenizer
