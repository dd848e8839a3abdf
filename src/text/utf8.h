// UTF-8 hygiene for incoming text. Hugging Face's trainer aborts on invalid UTF-8; we repair instead:
// every maximal invalid subpart becomes U+FFFD (the WHATWG / Unicode "best practice" count), NUL
// bytes are removed, and both are counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bertpt::text {

struct RepairCounts {
  uint64_t invalid = 0;  // invalid sequences replaced by U+FFFD
  uint64_t nul = 0;      // NUL bytes removed
};

// True when `s` is valid UTF-8 and contains no NUL byte (so it can be used as-is).
bool is_clean_utf8(std::string_view s);

// Appends the repaired form of `in` to `out` and adds to `counts`.
void repair_utf8(std::string_view in, std::string& out, RepairCounts& counts);

// Returns `in` itself when it is clean, otherwise its repaired copy in `scratch`.
std::string_view clean_utf8(std::string_view in, std::string& scratch, RepairCounts& counts);

// Number of code points of valid UTF-8 text.
uint64_t count_code_points(std::string_view s);

// Length of the longest prefix of `s` that is at most `max_bytes` and does not end inside a
// multi-byte character (for cutting over-long lines).
size_t utf8_safe_prefix(std::string_view s, size_t max_bytes);

// Appends the UTF-8 encoding of code point `cp` (which must be a scalar value).
void append_utf8(std::string& out, uint32_t cp);

}  // namespace bertpt::text
