#include "tokenizer/normalizers/lowercase.h"

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

void LowercaseNormalizer::normalize(std::string_view text, std::string& out) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  out.reserve(out.size() + text.size());
  for (size_t i = 0; i < text.size();) {
    if (p[i] < 0x80) {
      out.push_back(p[i] >= 'A' && p[i] <= 'Z' ? char(p[i] + ('a' - 'A')) : char(p[i]));
      ++i;
      continue;
    }
    size_t len;
    const uint32_t entry = unicode::lookup(unicode::decode_utf8(p + i, text.size() - i, len));
    const uint16_t lower = (entry & unicode::kMap) ? unicode::record(entry).lower : 0;
    out.append(lower ? unicode::pool_string(lower) : text.substr(i, len));
    i += len;
  }
}

}  // namespace bertpt::tokenizer
