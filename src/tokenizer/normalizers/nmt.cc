#include "tokenizer/normalizers/nmt.h"

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

bool removed(uint32_t c) {
  return (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F || c == 0x8F || c == 0x9F;
}

bool to_space(uint32_t c) {
  return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 || (c >= 0x200B && c <= 0x200F) ||
         c == 0x2028 || c == 0x2029 || c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
}

}  // namespace

bool NmtNormalizer::keeps_origin(std::string_view text) const {
  if (text.empty()) return true;
  size_t len;
  return !removed(unicode::decode_utf8(reinterpret_cast<const unsigned char*>(text.data()), text.size(), len));
}

void NmtNormalizer::normalize(std::string_view text, std::string& out) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const uint32_t cp = unicode::decode_utf8(p + i, text.size() - i, len);
    if (to_space(cp)) {
      out.push_back(' ');
    } else if (!removed(cp)) {
      out.append(text.substr(i, len));
    }
    i += len;
  }
}

}  // namespace bertpt::tokenizer
