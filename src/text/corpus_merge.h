// `bertpt corpus merge`: many sources in, one JSONL corpus out ({"text": …, "source": …} per line),
// optionally deduplicated, re-weighted per source and shuffled. Memory stays bounded: the shuffle is
// an external sort by a seeded hash, spilled to bucket files beside the output.
#pragma once

#include <cstdint>
#include <functional>
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
};

struct MergeResult {
  std::vector<SourceStats> sources;  // what was read
  SourceStats total;
  std::vector<uint64_t> written_per_source;  // documents written (after dedup, limits, weights)
  uint64_t written = 0;
  uint64_t duplicates = 0;
  uint64_t bytes_written = 0;  // uncompressed JSONL bytes
  uint64_t buckets = 0;        // shuffle buckets used (0 without --shuffle)
};

// Progress callback: (disk bytes read, disk bytes total, documents written so far).
using MergeProgress = std::function<void(uint64_t, uint64_t, uint64_t)>;

// Writes the merged corpus to options.out atomically. Throws BadInput on bad input; the output
// file is never left behind incomplete.
MergeResult merge_corpus(const MergeOptions& options, const MergeProgress& progress = {});

// Appends `s` (valid UTF-8) as a JSON string literal.
void append_json_string(std::string& out, std::string_view s);

}  // namespace bertpt::text
