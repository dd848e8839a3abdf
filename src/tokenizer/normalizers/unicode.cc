#include "tokenizer/normalizers/unicode.h"

#include <utf8proc.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

struct Range {
  uint32_t first, last;
};
constexpr Range kUnicode9[] = {
#include "tokenizer/normalizers/unicode9_ranges.inc"
};

// Canonical combining class as HF's crate has it.
uint8_t combining_class(int32_t cp) {
  if (cp < 0x300 || !assigned_in_unicode_9(uint32_t(cp))) return 0;
  return uint8_t(utf8proc_get_property(cp)->combining_class);
}

void append_utf8(std::string& out, int32_t cp) {
  uint8_t bytes[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(cp, bytes);
  out.append(reinterpret_cast<const char*>(bytes), size_t(n));
}

// Decomposes `text` into `cps` (canonically, or with compatibility mappings), then puts each run of
// non-starters in canonical order (a stable sort by combining class).
void decompose(std::string_view text, bool compat, std::vector<int32_t>& cps) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const utf8proc_option_t options = utf8proc_option_t(UTF8PROC_DECOMPOSE | (compat ? UTF8PROC_COMPAT : 0));
  cps.clear();
  for (size_t i = 0; i < text.size();) {
    size_t len;
    const uint32_t cp = unicode::decode_utf8(p + i, text.size() - i, len);
    i += len;
    if (cp < 0xA0 || !assigned_in_unicode_9(cp)) {
      cps.push_back(int32_t(cp));
      continue;
    }
    int32_t buffer[32];  // the longest decomposition (U+FDFA) has 18 code points
    int boundclass = 0;
    const utf8proc_ssize_t n = utf8proc_decompose_char(int32_t(cp), buffer, 32, options, &boundclass);
    if (n <= 0 || n > 32) {
      cps.push_back(int32_t(cp));
    } else {
      cps.insert(cps.end(), buffer, buffer + n);
    }
  }
  for (size_t i = 0; i < cps.size();) {
    if (combining_class(cps[i]) == 0) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < cps.size() && combining_class(cps[end]) != 0) ++end;
    std::stable_sort(cps.begin() + i, cps.begin() + end,
                     [](int32_t a, int32_t b) { return combining_class(a) < combining_class(b); });
    i = end;
  }
}

// Canonical composition of decomposed, ordered `cps`, by utf8proc, one stretch at a time between code
// points unknown to Unicode 9.0: for HF those are starters that compose with nothing, and no stretch
// holds one, so utf8proc's newer data agrees with 9.0 inside (a composite added after 9.0 whose
// parts are older is a composition exclusion, which UTF8PROC_STABLE honours).
void compose(std::vector<int32_t>& cps) {
  size_t write = 0;
  for (size_t i = 0; i < cps.size();) {
    size_t end = i;
    while (end < cps.size() && (cps[end] < 0xA0 || assigned_in_unicode_9(uint32_t(cps[end])))) ++end;
    if (end > i) {
      const utf8proc_ssize_t n = utf8proc_normalize_utf32(cps.data() + i, utf8proc_ssize_t(end - i),
                                                          utf8proc_option_t(UTF8PROC_COMPOSE | UTF8PROC_STABLE));
      std::copy(cps.begin() + i, cps.begin() + i + n, cps.begin() + write);
      write += size_t(n);
    }
    if (end < cps.size()) cps[write++] = cps[end++];
    i = end;
  }
  cps.resize(write);
}

const char* form_name(UnicodeNormalizer::Form form) {
  switch (form) {
    case UnicodeNormalizer::Form::kNFC: return "NFC";
    case UnicodeNormalizer::Form::kNFD: return "NFD";
    case UnicodeNormalizer::Form::kNFKC: return "NFKC";
    case UnicodeNormalizer::Form::kNFKD: return "NFKD";
  }
  return "NFC";
}

}  // namespace

bool assigned_in_unicode_9(uint32_t cp) {
  const Range* r = std::upper_bound(std::begin(kUnicode9), std::end(kUnicode9), cp,
                                    [](uint32_t c, const Range& range) { return c < range.first; });
  return r != std::begin(kUnicode9) && cp <= (r - 1)->last;
}

bool is_combining_mark_unicode_9(uint32_t cp) {
  if (cp < 0x300 || !assigned_in_unicode_9(cp)) return false;
  // General categories that changed after 9.0 (the only ones between Mark and not, code point by code
  // point against the peer): SHARADA SANDHI MARK was Po (Mn since 11.0); VEDIC SIGN ARDHAVISARGA and
  // ROTATED ARDHAVISARGA were Mc (Lo since 10.0).
  if (cp == 0x111C9) return false;
  if (cp == 0x1CF2 || cp == 0x1CF3) return true;
  const utf8proc_category_t c = utf8proc_category(int32_t(cp));
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

std::shared_ptr<const UnicodeNormalizer> UnicodeNormalizer::from_json(const JsonFields& f) {
  const std::string type = f.str("type");
  for (const Form form : {Form::kNFC, Form::kNFD, Form::kNFKC, Form::kNFKD}) {
    if (type == form_name(form)) return std::make_shared<const UnicodeNormalizer>(form);
  }
  f.fail("type", "is '" + type + "', expected NFC, NFD, NFKC or NFKD");
}

nlohmann::ordered_json UnicodeNormalizer::to_json() const { return {{"type", form_name(form_)}}; }

void UnicodeNormalizer::normalize(std::string_view text, std::string& out) const {
  // ASCII is unchanged by every form, and nothing composes with a following ASCII character.
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    out.append(text);
    return;
  }
  static thread_local std::vector<int32_t> cps;
  decompose(text, form_ == Form::kNFKC || form_ == Form::kNFKD, cps);
  if (form_ == Form::kNFC || form_ == Form::kNFKC) compose(cps);
  out.reserve(out.size() + cps.size() * 2);
  for (const int32_t cp : cps) append_utf8(out, cp);
}

}  // namespace bertpt::tokenizer
