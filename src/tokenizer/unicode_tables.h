// Per-code-point properties of the BERT normalizer and pre-tokenizer, in the exact Unicode vintages
// Hugging Face tokenizers uses (categories 8.0, NFD 9.0, lowercase 17.0; see
// scripts/gen_unicode_tables.py, which generates unicode_tables_data.inc).
//
// One two-level lookup gives everything: the low 8 bits are flags, the high bits index a mapping
// record holding the lowercase / strip-accents / both outputs as UTF-8 strings in a byte pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bertpt::tokenizer::unicode {

enum Flag : uint32_t {
  kDelete = 1,        // removed by clean_text: U+0000, U+FFFD, Cc/Cf/Co except \t \n \r
  kSpace = 2,         // whitespace: \t \n \r or White_Space (clean_text maps it to ' ')
  kChinese = 4,       // CJK ideograph that handle_chinese_chars surrounds with spaces
  kPunct = 8,         // the pre-tokenizer isolates it (ASCII punctuation or category P*)
  kMap = 16,          // lowercase and/or strip_accents change it: see record()
  kCcc = 32,          // strip_accents leaves a mark with non-zero combining class (may reorder)
  kHangul = 64,       // precomposed Hangul syllable: strip_accents decomposes it algorithmically
  kNonStarter = 128,  // its NFD has only combining marks: it continues a run of marks
};

// Offsets into kPool of the changed forms of a code point; 0 means "unchanged".
struct MapRecord {
  uint16_t lower;
  uint16_t strip;
  uint16_t lower_strip;
};

// A mark that strip_accents keeps (not Mn in Unicode 8.0) but that has a combining class.
struct CccEntry {
  uint32_t cp;
  uint8_t ccc;
};

constexpr int kBlockShift = 7;
extern const uint16_t kStage1[];
extern const uint32_t kStage2[];
extern const MapRecord kRecords[];
extern const uint8_t kPool[];

// Flags (low 8 bits) and record index (bits 8..) of `cp`, which must be < 0x110000.
inline uint32_t lookup(uint32_t cp) {
  return kStage2[(uint32_t(kStage1[cp >> kBlockShift]) << kBlockShift) | (cp & ((1u << kBlockShift) - 1))];
}

inline const MapRecord& record(uint32_t entry) { return kRecords[entry >> 8]; }

// The pool string at `offset` (a length byte, then UTF-8).
inline std::string_view pool_string(uint16_t offset) {
  return {reinterpret_cast<const char*>(kPool + offset + 1), kPool[offset]};
}

// Canonical combining class of a mark that survives strip_accents (0 for anything else).
uint8_t survivor_ccc(uint32_t cp);

// Decodes one UTF-8 character at `p` (at most `avail` bytes). Returns the code point and sets
// `len`. Invalid or truncated input decodes as U+FFFD of length 1, so callers never overrun.
inline uint32_t decode_utf8(const unsigned char* p, size_t avail, size_t& len) {
  const uint32_t b0 = p[0];
  if (b0 < 0x80) {
    len = 1;
    return b0;
  }
  if (b0 >= 0xC2 && b0 < 0xE0 && avail >= 2 && (p[1] & 0xC0) == 0x80) {
    len = 2;
    return ((b0 & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (b0 >= 0xE0 && b0 < 0xF0 && avail >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
    const uint32_t cp = ((b0 & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) {
      len = 3;
      return cp;
    }
  } else if (b0 >= 0xF0 && b0 < 0xF5 && avail >= 4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
             (p[3] & 0xC0) == 0x80) {
    const uint32_t cp = ((b0 & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    if (cp >= 0x10000 && cp < 0x110000) {
      len = 4;
      return cp;
    }
  }
  len = 1;
  return 0xFFFD;
}

}  // namespace bertpt::tokenizer::unicode
