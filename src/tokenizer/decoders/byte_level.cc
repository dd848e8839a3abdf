#include "tokenizer/decoders/byte_level.h"

#include "tokenizer/pre_tokenizers/byte_level.h"

namespace bertpt::tokenizer {
namespace {

inline bool in(unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; }

// Bytes of the valid character at s[i], or 0 when s[i..] does not start one; then `invalid` is the
// length of the maximal subpart to replace (at least 1), as core::str::lossy counts it.
size_t valid_char_length(const unsigned char* s, size_t n, size_t i, size_t& invalid) {
  const unsigned char b = s[i];
  const auto at = [&](size_t k) -> unsigned char { return i + k < n ? s[i + k] : 0; };
  const auto continuation = [&](size_t k) { return (at(k) & 0xC0) == 0x80; };
  size_t width = 0;
  bool second_ok = false;
  if (b < 0x80) return 1;
  if (in(b, 0xC2, 0xDF)) {
    width = 2;
    second_ok = continuation(1);
  } else if (in(b, 0xE0, 0xEF)) {
    width = 3;
    const unsigned char c = at(1);
    second_ok = (b == 0xE0 && in(c, 0xA0, 0xBF)) || (in(b, 0xE1, 0xEC) && in(c, 0x80, 0xBF)) ||
                (b == 0xED && in(c, 0x80, 0x9F)) || (in(b, 0xEE, 0xEF) && in(c, 0x80, 0xBF));
  } else if (in(b, 0xF0, 0xF4)) {
    width = 4;
    const unsigned char c = at(1);
    second_ok = (b == 0xF0 && in(c, 0x90, 0xBF)) || (in(b, 0xF1, 0xF3) && in(c, 0x80, 0xBF)) ||
                (b == 0xF4 && in(c, 0x80, 0x8F));
  }
  invalid = 1;
  if (width == 0 || !second_ok) return 0;
  for (size_t k = 2; k < width; ++k) {
    if (!continuation(k)) {
      invalid = k;
      return 0;
    }
  }
  return width;
}

}  // namespace

void append_utf8_lossy(std::string_view bytes, std::string& out) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    size_t invalid = 0;
    const size_t width = valid_char_length(s, n, i, invalid);
    if (width) {
      out.append(bytes.substr(i, width));
      i += width;
    } else {
      out.append("\xEF\xBF\xBD");
      i += invalid;
    }
  }
}

void ByteLevelDecoder::decode_chain(std::vector<std::string>& tokens) const {
  std::string bytes;
  for (const std::string& token : tokens) {
    if (!ByteLevel::append_token_bytes(token, bytes)) bytes.append(token);
  }
  std::string text;
  text.reserve(bytes.size());
  append_utf8_lossy(bytes, text);
  tokens.assign(1, std::move(text));
}

nlohmann::ordered_json ByteLevelDecoder::to_json() const {
  return byte_level_json(add_prefix_space_, trim_offsets_, use_regex_);
}

std::shared_ptr<const ByteLevelDecoder> ByteLevelDecoder::from_json(const JsonFields& f) {
  const ByteLevelFlags b = read_byte_level_flags(f);
  return std::make_shared<const ByteLevelDecoder>(b.add_prefix_space, b.trim_offsets, b.use_regex);
}

}  // namespace bertpt::tokenizer
