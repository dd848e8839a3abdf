// `bertpt corpus merge`: many sources in, one JSONL corpus out ({"text": …, "source": …} per line),
// optionally deduplicated, re-weighted per source and shuffled. Memory stays bounded: the shuffle is
// an external sort by a seeded hash, spilled to bucket files beside the output.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "text/corpus_reader.h"

namespace bertpt::text {

struct MergeOptions {
  CorpusOptions corpus;
  std::string out;  // .jsonl, or .jsonl.{gz,zst,xz,bz2} to compress
  bool shuffle = false;
  uint64_t seed = 0;
  bool dedup = false;                               // drop exact duplicates (by 64-bit content hash; 16 B per document)
  std::vector<uint64_t> max_docs;                   // per source; 0 = no limit (counted after dedup, before weighting)
  std::vector<double> weight;                       // per source; copies per document (0.5 keeps about half, 2 doubles)
  size_t shuffle_memory_bytes = size_t(512) << 20;  // target size of one in-memory bucket
  int compression_level = -1;
  // Asked often (every document, every record written); when it returns true the merge stops: its
  // temporary files (the shuffle's buckets, the unfinished output) are removed and MergeStopped
  // is thrown. The CLI sets it from SIGINT/SIGTERM.
  std::function<bool()> stop_requested;
};

// What merge_corpus throws when stop_requested() said so, after removing its temporary files.
struct MergeStopped : std::runtime_error {
  MergeStopped() : std::runtime_error("corpus merge stopped") {}
};

struct MergeResult {
  std::vector<SourceStats> sources;  // what was read
  SourceStats total;
  std::vector<uint64_t> written_per_source;  // documents written (after dedup, limits, weights)
  uint64_t written = 0;
  uint64_t duplicates = 0;
  uint64_t bytes_written = 0;  // uncompressed JSONL bytes
  uint64_t buckets = 0;        // shuffle buckets used (0 without --shuffle)
  // Temporary files of earlier merges into the same output that were killed (bucket directories,
  // an unfinished output), found and removed before this one started.
  std::vector<std::string> leftovers_removed;
  uint64_t leftover_bytes_removed = 0;
};

// What the progress callback is told.
struct MergeCounts {
  uint64_t disk_bytes_read = 0, disk_bytes_total = 0;
  uint64_t written = 0;  // documents written so far
  uint64_t pages = 0;    // MediaWiki pages read so far (0 without dumps)
};
using MergeProgress = std::function<void(const MergeCounts&)>;

// Writes the merged corpus to options.out atomically. Throws BadInput on bad input; the output
// file is never left behind incomplete, nor are the shuffle's bucket files (OUT.buckets.PID/),
// whichever way the merge ends short of a kill — and those of a killed merge are removed by the next
// one into the same output. One merge per output at a time: a second fails at once (DirLock beside
// the output, PARENT/.NAME.bertpt.lock).
MergeResult merge_corpus(const MergeOptions& options, const MergeProgress& progress = {});

// Appends `s` (valid UTF-8) as a JSON string literal.
void append_json_string(std::string& out, std::string_view s);

}  // namespace bertpt::text
