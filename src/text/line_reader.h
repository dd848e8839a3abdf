// Splits a ByteSource into lines without holding more than one buffer: '\n' ends a line, a trailing
// '\r' is dropped (CRLF), a UTF-8 BOM at the start of the file is dropped, and a line longer than
// `max_line_bytes` is cut at a character boundary into several lines (counted).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "text/byte_source.h"

namespace bertpt::text {

class LineReader {
 public:
  LineReader(std::unique_ptr<ByteSource> source, size_t max_line_bytes);

  // Next line (without its terminator), valid until the next call; false at end of input.
  bool next(std::string_view& line);
  // 1-based number of the physical line last returned (a split line keeps its number).
  uint64_t line_number() const { return line_number_; }
  // The first bytes of the file after the BOM (fills the buffer if needed), for format sniffing.
  std::string_view peek(size_t want);

  // The next bytes exactly as they are (after the BOM), up to `capacity`; 0 at the end of input. For
  // a format read by its own parser (MediaWiki XML); not to be mixed with next().
  size_t read_raw(char* out, size_t capacity);

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t long_lines_split() const { return long_lines_split_; }
  const ByteSource& source() const { return *source_; }

 private:
  bool fill();  // reads more bytes after compacting; false at end of input

  std::unique_ptr<ByteSource> source_;
  size_t max_line_bytes_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;  // unread bytes are buf_[begin_, end_)
  bool eof_ = false;
  bool bom_checked_ = false;
  bool continuing_split_ = false;  // the previous piece was a cut of an over-long line
  uint64_t line_number_ = 0;
  uint64_t bytes_read_ = 0;
  uint64_t long_lines_split_ = 0;
};

}  // namespace bertpt::text
