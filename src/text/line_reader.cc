#include "text/line_reader.h"

#include <algorithm>
#include <cstring>

#include "text/utf8.h"

namespace bertpt::text {

namespace {
constexpr size_t kMinBuffer = 1 << 20;
}

LineReader::LineReader(std::unique_ptr<ByteSource> source, size_t max_line_bytes)
    : source_(std::move(source)), max_line_bytes_(std::max<size_t>(max_line_bytes, 16)) {
  // Room for one whole capped line plus slack, so a line never needs a second buffer.
  buf_.resize(std::max(kMinBuffer, 2 * max_line_bytes_ + 16));
}

bool LineReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  size_t before = end_;
  while (end_ < buf_.size()) {
    // Modest reads keep memory touched and latency low: lines flow out while the file streams in,
    // and an error deep in a compressed file comes after the documents before it.
    size_t n = source_->read(buf_.data() + end_, std::min<size_t>(buf_.size() - end_, 1 << 18));
    if (n == 0) {
      eof_ = true;
      break;
    }
    end_ += n;
    bytes_read_ += n;
    if (end_ - before >= (1 << 16)) break;  // enough to make progress
  }
  if (!bom_checked_ && (end_ >= 3 || eof_)) {
    bom_checked_ = true;
    if (end_ - begin_ >= 3 && std::memcmp(buf_.data() + begin_, "\xEF\xBB\xBF", 3) == 0) begin_ += 3;
  }
  return end_ > before;
}

std::string_view LineReader::peek(size_t want) {
  while (end_ - begin_ < want && fill()) {
  }
  return std::string_view(buf_.data() + begin_, std::min(want, end_ - begin_));
}

size_t LineReader::read_raw(char* out, size_t capacity) {
  if (begin_ == end_ && !fill()) return 0;
  const size_t n = std::min(capacity, end_ - begin_);
  std::memcpy(out, buf_.data() + begin_, n);
  begin_ += n;
  return n;
}

bool LineReader::next(std::string_view& line) {
  size_t scanned = 0;  // bytes of the pending line already searched for '\n'
  for (;;) {
    if (!bom_checked_) fill();
    const char* start = buf_.data() + begin_;
    size_t avail = end_ - begin_;
    const void* nl = avail > scanned ? std::memchr(start + scanned, '\n', avail - scanned) : nullptr;
    size_t len = nl ? size_t(static_cast<const char*>(nl) - start) : avail;
    if (len > max_line_bytes_) {
      // Cut the over-long line; the rest comes back as the next piece with the same line number.
      size_t cut = utf8_safe_prefix(std::string_view(start, len), max_line_bytes_);
      if (!continuing_split_) {
        ++line_number_;
        ++long_lines_split_;
      }
      continuing_split_ = true;
      line = std::string_view(start, cut);
      begin_ += cut;
      return true;
    }
    if (nl || (eof_ && avail > 0)) {
      size_t consumed = nl ? len + 1 : len;
      if (len > 0 && start[len - 1] == '\r') --len;
      if (!continuing_split_) ++line_number_;
      continuing_split_ = false;
      line = std::string_view(start, len);
      begin_ += consumed;
      return true;
    }
    if (eof_) return false;
    scanned = avail;  // relative to begin_, which fill()'s compaction keeps pointing at the line
    fill();
  }
}

}  // namespace bertpt::text
