// Streams documents out of any number of text sources (files, directories, globs; plain text, JSONL,
// WikiExtractor, MediaWiki XML dumps, optionally gz/zst/xz/bz2-compressed; Parquet and Arrow files), repairing
// text on the way. Memory stays bounded by the largest single document (or, for Parquet and Arrow, a few row
// groups), whatever the corpus size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/text_stats.h"

namespace bertpt::text {

enum class Format { Auto, Text, Jsonl, WikiExtractor, MediaWiki, Parquet, Arrow };
enum class DocPer { Line, Paragraph, File };

// "auto", "text", "jsonl", "wikiextractor", "mediawiki", "parquet", "arrow" <-> Format; parse throws BadInput
// listing the choices.
Format parse_format(const std::string& name);
const char* format_name(Format f);
DocPer parse_doc_per(const std::string& name);
const char* doc_per_name(DocPer d);

// The largest --max-line-bytes accepted (the line reader holds two lines' worth of buffer).
constexpr size_t kMaxLineBytesLimit = size_t(256) << 20;

struct CorpusOptions {
  std::vector<std::string> inputs;  // each --input: a file, a directory (recursive) or a glob
  Format format = Format::Auto;     // forced format, or detected per file
  DocPer doc_per = DocPer::Line;    // how plain text is cut into documents
  std::string text_field = "text";  // JSONL field, or Parquet/Arrow column, holding the text
  size_t max_line_bytes = 1 << 20;  // longer lines are cut at a character boundary (counted); <= kMaxLineBytesLimit
  bool skip_bad_lines = false;      // JSONL: skip (and count) malformed lines instead of failing
  std::vector<int64_t> namespaces = {0};  // MediaWiki dumps: the namespaces kept (0: articles)
  size_t read_threads = 2;                // Parquet/Arrow row groups decoded, MediaWiki pages converted, at once
  bool skip_bad_files = false;  // a file that cannot be read to its end: warn, count, go on (its documents so far stay)
  // Per source (shorter than inputs: the rest ""): the encoding its files are decoded from (an iconv name);
  // "" reads UTF-8, or UTF-16/32 where a file's first bytes say so (text/encoding.h).
  std::vector<std::string> encodings;
  // A file whose repairs (invalid sequences, NUL bytes) pass 1% of its bytes is not UTF-8 text and is
  // refused, naming what was found; true keeps it, repaired.
  bool repair_invalid_utf8 = false;
};

// Repairs in one file beyond this share of its bytes (and at least kMinRepairsRefused of them) refuse it.
constexpr double kMaxRepairedShare = 0.01;
constexpr uint64_t kMinRepairsRefused = 2;

struct Document {
  std::string_view text;  // valid UTF-8, no NUL, not empty; valid until the next call to next()
  size_t source_index;    // index into CorpusOptions::inputs
  std::string_view path;  // the file it came from
  uint64_t line;          // 1-based line where the document starts in that file (Parquet/Arrow: its row)
};

// Usage:
//   CorpusReader reader(options);
//   Document doc;
//   while (reader.next(doc)) { ... }
//   reader.stats()  -> per-source and total counts
// Throws BadInput (naming file and line) on missing paths, unknown formats, corrupt compressed data,
// malformed JSONL (unless skip_bad_lines), a damaged file (unless skip_bad_files). Counts gathered
// before an error stay in stats().
class CorpusReader {
 public:
  explicit CorpusReader(CorpusOptions options);
  ~CorpusReader();
  CorpusReader(const CorpusReader&) = delete;
  CorpusReader& operator=(const CorpusReader&) = delete;

  bool next(Document& doc);
  // Stops reading the current source (e.g. its --max-docs is reached); next() goes on with the
  // following one. Bytes of the abandoned file read so far stay counted.
  void skip_rest_of_source();

  // Per source (same order as options.inputs) and total.
  const std::vector<SourceStats>& stats() const;
  SourceStats total() const;
  // Compressed (on-disk) bytes consumed so far, and the on-disk size of all files (0: unknown, a
  // stream is among the inputs); for progress.
  uint64_t disk_bytes_read() const;
  uint64_t disk_bytes_total() const;
  // Whether an input is a stream (stdin, a pipe): read once, size unknown.
  bool has_streams() const;
  const CorpusOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bertpt::text
