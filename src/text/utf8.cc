#include "text/utf8.h"

#include <cstring>

namespace bertpt::text {

namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ull;
constexpr uint64_t kLowBits = 0x0101010101010101ull;

inline uint64_t load8(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// True when none of the 8 bytes is >= 0x80 or == 0.
inline bool ascii_no_nul(uint64_t v) { return ((v & kHighBits) | ((v - kLowBits) & ~v & kHighBits)) == 0; }

// Length of the valid UTF-8 sequence starting at p[0] (1–4), or 0 when invalid. When invalid,
// `*consumed` is the length of the maximal invalid subpart to replace with one U+FFFD.
inline size_t decode_length(const unsigned char* p, size_t avail, size_t* consumed) {
  unsigned char b = p[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;  // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    *consumed = 1;
    return 0;
  }
  size_t i = 1;
  for (; i <= need; ++i) {
    if (i >= avail) break;
    unsigned char c = p[i];
    unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
    if (c < l || c > h) break;
  }
  if (i == need + 1) return need + 1;
  *consumed = i;
  return 0;
}

}  // namespace

bool is_clean_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    if (i + 8 <= n && ascii_no_nul(load8(p + i))) {
      i += 8;
      continue;
    }
    if (p[i] == 0) return false;
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t consumed;
    size_t len = decode_length(p + i, n - i, &consumed);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

void repair_utf8(std::string_view in, std::string& out, RepairCounts& counts) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  size_t n = in.size(), i = 0, run = 0;  // [run, i) is a clean stretch not yet copied
  out.reserve(out.size() + n);
  auto flush = [&] { out.append(in.data() + run, i - run); };
  while (i < n) {
    if (i + 8 <= n && ascii_no_nul(load8(p + i))) {
      i += 8;
      continue;
    }
    if (p[i] == 0) {
      flush();
      ++counts.nul;
      run = ++i;
      continue;
    }
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t consumed = 0;
    size_t len = decode_length(p + i, n - i, &consumed);
    if (len) {
      i += len;
      continue;
    }
    flush();
    out.append("\xEF\xBF\xBD");
    ++counts.invalid;
    i += consumed;
    run = i;
  }
  flush();
}

std::string_view clean_utf8(std::string_view in, std::string& scratch, RepairCounts& counts) {
  if (is_clean_utf8(in)) return in;
  scratch.clear();
  repair_utf8(in, scratch, counts);
  return scratch;
}

uint64_t count_code_points(std::string_view s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

size_t utf8_safe_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t cut = max_bytes;
  // Back off over at most 3 continuation bytes so the cut lands on a character start.
  for (int k = 0; k < 3 && cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80; ++k) --cut;
  return cut == 0 ? max_bytes : cut;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(char(cp));
  } else if (cp < 0x800) {
    out.push_back(char(0xC0 | (cp >> 6)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(char(0xE0 | (cp >> 12)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (cp >> 18)));
    out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  }
}

}  // namespace bertpt::text
