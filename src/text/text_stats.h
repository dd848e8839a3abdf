#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace bertpt::text {

// Counts for one source (one --input) or for a whole corpus.
struct SourceStats {
  std::string name;  // the --input string as given
  uint64_t files = 0;
  uint64_t bytes = 0;              // decompressed bytes read
  uint64_t disk_bytes = 0;         // on-disk bytes of its files
  uint64_t documents = 0;          // non-empty documents produced
  uint64_t characters = 0;         // Unicode code points in produced documents
  uint64_t empty_skipped = 0;      // empty (or whitespace-only) documents skipped
  uint64_t invalid_utf8 = 0;       // invalid byte sequences replaced with U+FFFD
  uint64_t nul_removed = 0;        // NUL bytes removed
  uint64_t long_lines_split = 0;   // lines longer than max_line_bytes that were split
  uint64_t bad_lines_skipped = 0;  // malformed JSONL lines skipped under skip_bad_lines
  // MediaWiki XML dumps: pages read, and those skipped as redirects or for their namespace.
  uint64_t pages = 0;
  uint64_t pages_redirect = 0;
  uint64_t pages_other_namespace = 0;
  uint64_t nulls_skipped = 0;      // Parquet/Arrow: null cells of the text column
  uint64_t bad_files_skipped = 0;  // files given up under skip_bad_files (their documents before the damage kept)
  uint64_t files_decoded = 0;      // files decoded to UTF-8 from another encoding (UTF-16/32, --encoding)

  SourceStats& operator+=(const SourceStats& o);
};

nlohmann::json to_json(const SourceStats& s);

}  // namespace bertpt::text
