// Feeds arbitrary bytes through the whole reading path: compression sniffing and decoding, line
// splitting, format detection, JSONL/WikiExtractor parsing, UTF-8 repair. Bad input may throw
// BadInput; anything else (a crash, a sanitizer report, invalid UTF-8 in a document) is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "text/corpus_reader.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string path = [] {
    char tmpl[] = "/tmp/bertpt-fuzz-XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    return std::string(tmpl);
  }();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  // The first byte picks the mode so that every reader gets explored.
  bertpt::text::CorpusOptions o;
  o.inputs = {path};
  o.max_line_bytes = 64;
  uint8_t mode = size ? data[0] : 0;
  o.doc_per = static_cast<bertpt::text::DocPer>(mode % 3);
  o.skip_bad_lines = mode & 4;
  try {
    bertpt::text::CorpusReader reader(o);
    bertpt::text::Document doc;
    while (reader.next(doc)) {
      if (!bertpt::text::is_clean_utf8(doc.text) || doc.text.empty()) std::abort();
    }
  } catch (const bertpt::BadInput&) {
  }
  return 0;
}
