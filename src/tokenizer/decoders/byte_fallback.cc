#include "tokenizer/decoders/byte_fallback.h"

#include <optional>

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The byte of a "<0xNN>" token (Rust's u8::from_str_radix(NN, 16): two hex digits; a leading '+'
// is accepted there too, "<0x+F>").
std::optional<unsigned char> byte_token(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return std::nullopt;
  const int lo = hex_digit(t[4]);
  if (lo < 0) return std::nullopt;
  if (t[3] == '+') return static_cast<unsigned char>(lo);
  const int hi = hex_digit(t[3]);
  if (hi < 0) return std::nullopt;
  return static_cast<unsigned char>(hi * 16 + lo);
}

bool valid_utf8(const std::string& bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < bytes.size();) {
    size_t len;
    if (unicode::decode_utf8(p + i, bytes.size() - i, len) == 0xFFFD && len == 1) return false;
    i += len;
  }
  return true;
}

void flush(std::string& bytes, std::vector<std::string>& out) {
  if (bytes.empty()) return;
  if (valid_utf8(bytes)) {
    out.push_back(bytes);
  } else {
    for (size_t i = 0; i < bytes.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
  }
  bytes.clear();
}

}  // namespace

void ByteFallbackDecoder::decode_chain(std::vector<std::string>& tokens) const {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  std::string bytes;
  for (std::string& token : tokens) {
    if (const std::optional<unsigned char> b = byte_token(token)) {
      bytes.push_back(static_cast<char>(*b));
      continue;
    }
    flush(bytes, out);
    out.push_back(std::move(token));
  }
  flush(bytes, out);
  tokens.swap(out);
}

}  // namespace bertpt::tokenizer
