#include "tokenizer/normalizers/strip_accents.h"

#include "tokenizer/normalizers/unicode.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

bool StripAccentsNormalizer::keeps_origin(std::string_view text) const {
  if (text.empty()) return true;
  size_t len;
  const uint32_t cp = unicode::decode_utf8(reinterpret_cast<const unsigned char*>(text.data()), text.size(), len);
  return !is_combining_mark_unicode_9(cp);
}

void StripAccentsNormalizer::normalize(std::string_view text, std::string& out) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const uint32_t cp = unicode::decode_utf8(p + i, text.size() - i, len);
    if (!is_combining_mark_unicode_9(cp)) out.append(text.substr(i, len));
    i += len;
  }
}

}  // namespace bertpt::tokenizer
