#include "tokenizer/normalizers/strip.h"

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

bool is_whitespace(uint32_t cp) { return unicode::lookup(cp) & unicode::kSpace; }

}  // namespace

size_t leading_whitespace(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    size_t len;
    if (!is_whitespace(unicode::decode_utf8(p + i, text.size() - i, len))) break;
    i += len;
  }
  return i;
}

size_t trailing_whitespace(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t end = text.size();
  while (end > 0) {
    size_t begin = end - 1;
    while (begin > 0 && (p[begin] & 0xC0) == 0x80) --begin;  // back to the character's lead byte
    size_t len;
    if (!is_whitespace(unicode::decode_utf8(p + begin, end - begin, len)) || begin + len != end) break;
    end = begin;
  }
  return text.size() - end;
}

void StripNormalizer::normalize(std::string_view text, std::string& out) const {
  if (left_) text.remove_prefix(leading_whitespace(text));
  if (right_) text.remove_suffix(trailing_whitespace(text));
  out.append(text);
}

}  // namespace bertpt::tokenizer
