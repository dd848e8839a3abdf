#include "text/wiki_pages.h"

#include <algorithm>
#include <optional>

#include "common/ordered_loader.h"
#include "text/mediawiki_xml.h"
#include "text/wikitext.h"

namespace bertpt::text {

namespace {

// Pages per batch: a batch is parsed in one turn, then converted by one worker. A few MiB of wikitext
// at most (Wikipedia articles average ~20 KiB of wikitext), so the window of batches stays small.
constexpr size_t kBatchPages = 64;
constexpr size_t kBatchBytes = 4 << 20;

struct PageBatch {
  std::vector<ProsePage> pages;
  uint64_t bytes_read = 0, disk_bytes_read = 0;  // the source's counters after the batch
  std::exception_ptr error;                      // the parse failed after these pages
};

}  // namespace

struct WikiPageStream::Impl {
  Impl(LineReader& source, std::string path, std::vector<int64_t> namespaces, size_t threads)
      : source(source),
        wiki(source, std::move(path)),
        namespaces(std::move(namespaces)),
        loader([this](size_t index, size_t) { return load(index); }, std::max<size_t>(1, threads),
               2 * std::max<size_t>(1, threads)) {}

  // Batch `index`: parsed when its turn comes (batches are parsed in index order), then converted.
  std::optional<PageBatch> load(size_t index) {
    PageBatch batch;
    const bool parsed = turns.take(index, [&] {
      if (parse_ended) return false;
      parse(batch);
      return true;
    });
    if (!parsed) return std::nullopt;
    for (ProsePage& p : batch.pages) {
      if (p.kept && !p.redirect) p.text = wikitext_to_text(p.text);
    }
    return batch;
  }

  // Reads the next pages into `batch` (the parse turn is held); their wikitext stays in `text`.
  void parse(PageBatch& batch) {
    size_t bytes = 0;
    WikiPage page;
    try {
      while (batch.pages.size() < kBatchPages && bytes < kBatchBytes && wiki.next(page)) {
        ProsePage p;
        p.ns = page.ns;
        p.line = page.line;
        p.kept = std::find(namespaces.begin(), namespaces.end(), page.ns) != namespaces.end();
        p.redirect = page.redirect || is_redirect_wikitext(page.text);
        if (p.kept && !p.redirect) p.text = std::move(page.text);
        bytes += p.text.size();
        batch.pages.push_back(std::move(p));
      }
      if (batch.pages.size() < kBatchPages && bytes < kBatchBytes) parse_ended = true;  // the end of the dump
    } catch (...) {
      batch.error = std::current_exception();
      parse_ended = true;
    }
    batch.bytes_read = source.bytes_read();
    batch.disk_bytes_read = source.source().disk_bytes_read();
  }

  LineReader& source;
  MediaWikiReader wiki;
  const std::vector<int64_t> namespaces;
  InOrderTurns turns;        // batches are parsed in index order
  bool parse_ended = false;  // the dump ended or failed (read in the turns)
  std::optional<PageBatch> current;
  size_t next_page = 0;
  OrderedLoader<PageBatch> loader;  // last: its workers use the members above
};

WikiPageStream::WikiPageStream(LineReader& source, std::string path, std::vector<int64_t> namespaces, size_t threads)
    : impl_(std::make_unique<Impl>(source, std::move(path), std::move(namespaces), threads)) {}

WikiPageStream::~WikiPageStream() = default;

bool WikiPageStream::next(ProsePage& page) {
  Impl& m = *impl_;
  while (!m.current || m.next_page == m.current->pages.size()) {
    if (m.current && m.current->error) {
      std::exception_ptr error = m.current->error;
      m.current.reset();
      std::rethrow_exception(error);
    }
    m.current = m.loader.next();
    m.next_page = 0;
    if (!m.current) return false;
    bytes_read_ = m.current->bytes_read;
    disk_bytes_read_ = m.current->disk_bytes_read;
  }
  page = std::move(m.current->pages[m.next_page++]);
  return true;
}

}  // namespace bertpt::text
