// The pages of a MediaWiki dump as prose, converted on several threads and delivered in file order.
// expat parses the XML on one thread at a time — whichever worker holds the parse turn reads the next
// batch of pages — and each worker turns its batch's wikitext into text (text/wikitext.h) in parallel
// with the others, so a dump is read about as fast as the decompression and the parsing allow.
// The pages, their order and every count are the same for any thread count.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "text/line_reader.h"

namespace bertpt::text {

struct ProsePage {
  int64_t ns = 0;
  bool kept = false;      // in one of the namespaces asked for
  bool redirect = false;  // a <redirect/> element or #REDIRECT wikitext (then not converted)
  uint64_t line = 0;      // of the <page> tag
  std::string text;       // the prose of a kept page that is not a redirect
};

class WikiPageStream {
 public:
  // Reads the dump from `source` (the file `path`, for messages); pages of `namespaces` are converted
  // by `threads` workers (at least 1).
  WikiPageStream(LineReader& source, std::string path, std::vector<int64_t> namespaces, size_t threads);
  ~WikiPageStream();
  WikiPageStream(const WikiPageStream&) = delete;
  WikiPageStream& operator=(const WikiPageStream&) = delete;

  // The next page in file order; false after the last. A malformed dump throws (BadInput naming the
  // file and line, as MediaWikiReader) after the pages before the damage were delivered.
  bool next(ProsePage& page);
  // The source's counters as of the last page delivered (the source itself is read by the workers).
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t disk_bytes_read() const { return disk_bytes_read_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t bytes_read_ = 0, disk_bytes_read_ = 0;
};

}  // namespace bertpt::text
