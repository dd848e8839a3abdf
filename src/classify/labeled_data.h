// Labelled examples for sequence classification, read from JSONL, CSV or TSV files (the inputs of
// `bertpt finetune` and `bertpt predict`). Files may be compressed (gzip/zstd/xz/bzip2, by magic).
//
//   jsonl  one JSON object per line; fields by name; a label may be a string, a number or a bool
//          (numbers and bools become their JSON text: 1, 3.8, "true"). Blank lines are skipped.
//   csv    RFC 4180: comma-separated, "..." quoting with "" escapes, quoted fields may span lines.
//   tsv    tab-separated, no quoting at all (GLUE's files: quotes are ordinary characters).
//   With a header line (the default) a field is a column name, or a 0-based column index when no
//   column has that name; with --no-header fields must be 0-based column indices.
// No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bertpt::classify {

struct LabeledDataOptions {
  std::string format = "auto";  // auto (by extension: .jsonl/.json/.txt -> jsonl, .csv, .tsv; a
                                // compression suffix is ignored), jsonl, csv, tsv
  std::string text_field = "text";
  std::string text_pair_field;  // empty: single-text examples
  std::string label_field = "label";
  bool header = true;  // CSV/TSV: the first record names the columns
};

struct Example {
  std::string text;
  std::string text_pair;  // empty for single-text tasks
  std::string label;      // empty when the file is read without labels
  uint64_t line = 0;      // 1-based line of the record's start, for error messages
};

// Reads every example of `path`. With `require_label` false the label field may be absent (predict
// input); when present it is still read. Throws BadInput naming the file, line and field for: a
// missing file, an unknown format, a record without a required field, a text field that is not a
// string, a label that is not a string/number/bool, a column index out of range, a CSV quote left
// open at the end of the file, and a file with no examples ("empty split").
std::vector<Example> read_labeled_data(const std::string& path, const LabeledDataOptions& options, bool require_label);

// "jsonl", "csv" or "tsv" for `path` under options.format (auto: by extension).
std::string resolve_format(const std::string& path, const std::string& format);

// "a, b, c" for error messages: the first 20 names, then "... (N in all)".
std::string name_list(const std::vector<std::string>& names);

}  // namespace bertpt::classify
