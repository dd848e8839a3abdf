// The decoders of sentencepiece-style tokenizer.json files: ByteFallback, Fuse, Strip, Replace and
// Sequence (tokenizer/decoders/), alone and in Llama's chain. Expected texts are Hugging Face
// tokenizers 0.23.3's (decoders.X(...).decode(tokens)).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "tokenizer/decoders/byte_fallback.h"
#include "tokenizer/decoders/fuse.h"
#include "tokenizer/decoders/replace.h"
#include "tokenizer/decoders/sequence.h"
#include "tokenizer/decoders/strip.h"

namespace bertpt::tokenizer {
namespace {

using V = std::vector<std::string>;

V chain(const Decoder& d, V tokens) {
  d.decode_chain(tokens);
  return tokens;
}

DecoderPtr read(const std::string& text) {
  static std::vector<std::unique_ptr<nlohmann::json>> keep;  // JsonValue refers to its JSON
  keep.push_back(std::make_unique<nlohmann::json>(nlohmann::json::parse(text)));
  return read_decoder(JsonValue(*keep.back(), "tokenizer.json", "decoder"));
}

const std::string kFffd = "\xEF\xBF\xBD";

TEST(ByteFallbackDecoder, ByteRunsBecomeTextOrOneReplacementCharacterPerByte) {
  const ByteFallbackDecoder d;
  EXPECT_EQ(chain(d, {"<0x61>", "<0x62>", "c"}), (V{"ab", "c"}));
  EXPECT_EQ(chain(d, {"<0xC3>", "<0xA9>"}), (V{"\xC3\xA9"}));
  EXPECT_EQ(chain(d, {"<0xC3>", "x", "<0xA9>"}), (V{kFffd, "x", kFffd}));
  EXPECT_EQ(chain(d, {"<0xE6>", "<0x97>"}), (V{kFffd, kFffd}));
  EXPECT_EQ(chain(d, {"<0xff>"}), (V{kFffd}));
  // Rust's u8::from_str_radix takes a '+' sign; anything else that is not "<0x" + 2 hex digits + '>'
  // passes through.
  EXPECT_EQ(chain(d, {"<0x+F>", "<0x4g>", "<0X41>", "<0x411>"}), (V{"\x0F", "<0x4g>", "<0X41>", "<0x411>"}));
}

TEST(FuseDecoder, JoinsEverything) {
  EXPECT_EQ(chain(FuseDecoder(), {"a", "b", " c"}), (V{"ab c"}));
  EXPECT_EQ(chain(FuseDecoder(), {}), (V{""}));
}

TEST(StripDecoder, CutsUpToStartAndStopContentCharacters) {
  EXPECT_EQ(chain(StripDecoder(" ", 1, 0), {" a", "  b", "c"}), (V{"a", " b", "c"}));
  EXPECT_EQ(chain(StripDecoder(" ", 0, 2), {"a   ", "b "}), (V{"a ", "b"}));
  EXPECT_EQ(chain(StripDecoder("\xC3\xA9", 1, 1), {"\xC3\xA9x\xC3\xA9", "\xC3\xA9\xC3\xA9"}), (V{"x", ""}));
  // Where HF panics (the cuts cross, or `stop` passes the start), what the cuts leave.
  EXPECT_EQ(chain(StripDecoder(" ", 1, 1), {" ", ""}), (V{"", ""}));
}

TEST(ReplaceDecoder, ReplacesInEachToken) {
  EXPECT_EQ(chain(ReplaceDecoder(Replacement(false, "\xE2\x96\x81", " ")), {"\xE2\x96\x81"
                                                                            "a\xE2\x96\x81",
                                                                            "b", ""}),
            (V{" a ", "b", ""}));
}

TEST(DecoderSequence, LlamasChain) {
  const auto d = read(R"({"type": "Sequence", "decoders": [
      {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
      {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]})");
  EXPECT_EQ(
      chain(*d, {"\xE2\x96\x81Hello", "\xE2\x96\x81w", "or", "ld", "<0xC3>", "<0xA9>", "\xE2\x96\x81", "<0xE6>", "!"}),
      (V{"Hello world\xC3\xA9 " + kFffd + "!"}));
  EXPECT_EQ(d->to_json().dump(),
            "{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\xE2\x96\x81\"},"
            "\"content\":\" \"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":\" \","
            "\"start\":1,\"stop\":0}]}");
  EXPECT_EQ(decode_tokens(d.get(), {"\xE2\x96\x81"
                                    "a",
                                    "\xE2\x96\x81"
                                    "b"}),
            "a b");
}

TEST(DecoderJson, BadOptionsNameTheField) {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      read(text);
    } catch (const BadInput& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of(R"({"type": "Strip", "content": " ", "start": 1})"),
            "tokenizer.json: field \"decoder.stop\" is missing");
  EXPECT_EQ(error_of(R"({"type": "Strip", "content": "ab", "start": 1, "stop": 0})"),
            "tokenizer.json: field \"decoder.content\" is 'ab', expected one character");
  EXPECT_EQ(error_of(R"({"type": "Sequence"})"), "tokenizer.json: field \"decoder.decoders\" is missing");
  EXPECT_EQ(error_of(R"({"type": "Replace", "pattern": "a", "content": ""})"),
            "tokenizer.json: field \"decoder.pattern\" is a string, expected an object");
}

}  // namespace
}  // namespace bertpt::tokenizer
