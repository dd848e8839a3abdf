// A MediaWiki XML dump of arbitrary bytes: the corpus reader (format mediawiki) must refuse it with a
// BadInput naming the file or give documents of valid UTF-8; and wikitext_to_text must turn the same
// bytes, as wikitext, into text without crashing (nested, unclosed and overlapping markup).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/error.h"
#include "text/corpus_reader.h"
#include "text/wikitext.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string path = [] {
    char tmpl[] = "/tmp/bertpt-fuzz-dump-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) std::abort();
    ::close(fd);
    return std::string(tmpl);
  }();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)bertpt::text::wikitext_to_text(bytes);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  bertpt::text::CorpusOptions o;
  o.inputs = {path};
  o.format = bertpt::text::Format::MediaWiki;
  try {
    bertpt::text::CorpusReader reader(o);
    bertpt::text::Document doc;
    while (reader.next(doc)) {
      if (doc.text.empty()) std::abort();
    }
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(path) == std::string::npos &&
        std::string(e.what()).find("no documents") == std::string::npos) {
      std::abort();  // the error names the file (or says the input held no documents)
    }
  }
  return 0;
}
