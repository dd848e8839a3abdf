// Blank text: empty, or nothing but ASCII whitespace, i.e. space, '\t', '\n', '\v', '\f', '\r' (what
// std::isspace accepts in the "C" locale). The readers skip blank input with it:
//  - text::CorpusReader: documents that are blank are skipped (and counted as empty), a blank line
//    ends a paragraph, and blank JSONL lines are skipped. A document can span lines (a paragraph, a
//    whole file, a JSONL value with "\n" escapes), so '\n' must count as blank.
//  - classify's labelled-data reader: blank lines between records are skipped. Its lines come from
//    LineReader, which ends a line at '\n', so they never hold one.
// Other Unicode spaces (U+00A0, U+3000, ...) are not blank here: such text is kept and left to the
// normalizer and pre-tokenizer, which treat it as whitespace.
#pragma once

#include <string_view>

namespace bertpt::text {

inline bool is_blank(std::string_view s) { return s.find_first_not_of(" \t\n\v\f\r") == std::string_view::npos; }

}  // namespace bertpt::text
