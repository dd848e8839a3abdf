// Pulls one string field out of a JSON object line (a JSONL row) without building a DOM: the whole
// line is still validated as JSON, but only the wanted value is decoded. Several times faster than a
// general parser, which matters because reading must keep up with decompression.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bertpt::text {

enum class JsonFieldStatus {
  Found,      // `out` holds the decoded value
  Missing,    // valid object without that key
  NotString,  // the key's value is not a string (or null)
  Malformed,  // not a JSON object; `error` says what and at which byte
};

struct JsonFieldResult {
  JsonFieldStatus status = JsonFieldStatus::Malformed;
  std::string error;            // for Malformed: "expected ':' at byte 17"
  uint64_t bad_surrogates = 0;  // \u escapes that were lone surrogates, decoded as U+FFFD
};

// `line` must be valid UTF-8. On Found, the decoded string is appended to `out` (cleared first).
// If the key occurs several times the last occurrence wins, as in Python's json module.
JsonFieldResult extract_json_string_field(std::string_view line, std::string_view field, std::string& out);

}  // namespace bertpt::text
