#include "cli/corpus_options.h"

namespace bertpt::cli {

void add_corpus_flags(CLI::App* cmd, CorpusFlags& f) {
  cmd->add_option("-i,--input", f.inputs,
                  "Text source: a file, a directory (read recursively) or a glob; or a stream: - (standard input), a "
                  "pipe, <(command); repeatable, one source each. Files may be gzip/zstd/xz/bzip2-compressed "
                  "(detected from their bytes), or Parquet / Arrow files (the hub's *.parquet, datasets' *.arrow; "
                  "these need seeking, not a stream)")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--format", f.format,
                  "Input format: auto (detect per file), text, jsonl (one JSON object per line), "
                  "wikiextractor (<doc> blocks), mediawiki (a Wikipedia XML dump: one document per article), "
                  "parquet, arrow (one document per row)")
      ->capture_default_str();
  cmd->add_option("--doc-per", f.doc_per,
                  "Plain text: one document per line, per blank-line-separated paragraph, or per file")
      ->capture_default_str();
  cmd->add_option("--text-field", f.text_field, "JSONL: the field holding the text; Parquet/Arrow: the column")
      ->capture_default_str();
  cmd->add_option("--max-line-bytes", f.max_line_bytes,
                  "Lines longer than this are split at a character boundary (and counted)")
      ->capture_default_str();
  cmd->add_option("--namespaces", f.namespaces,
                  "MediaWiki dumps: the namespaces of the pages kept, comma-separated (0: articles, 14: categories)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--skip-bad-lines", f.skip_bad_lines,
                "JSONL: skip lines that are not JSON or lack the text field (counted) instead of failing");
  cmd->add_flag("--skip-bad-files", f.skip_bad_files,
                "A file that cannot be read to its end (truncated, corrupt, not the format): warn, keep the "
                "documents read from it before the damage, count it, and go on with the next file");
  cmd->add_option(
         "--read-threads", f.read_threads,
         "Threads that decode Parquet/Arrow row groups, or turn a MediaWiki dump's wikitext into text, at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--encoding", f.encodings,
                  "Read the files in this encoding, decoded to UTF-8 by iconv: NAME for every source, or SOURCE=NAME "
                  "(SOURCE: the --input string or its 1-based position; one per source, over NAME); latin1, cp1252, "
                  "gb18030, shift_jis, utf-16 "
                  "… (`iconv -l`). Without it a file is UTF-8, or UTF-16/32 where its byte-order mark says so");
  cmd->add_flag("--repair-invalid-utf8", f.repair_invalid_utf8,
                "Keep a file in which more than 1% of the bytes are not UTF-8 (each bad sequence becomes U+FFFD, "
                "NUL bytes are dropped, all counted) instead of refusing it");
}

namespace {
std::string encoding_name(const std::string& s) { return s; }
}  // namespace

text::CorpusOptions CorpusFlags::to_options() const {
  text::CorpusOptions o;
  o.inputs = inputs;
  o.format = text::parse_format(format);
  o.doc_per = text::parse_doc_per(doc_per);
  o.text_field = text_field;
  o.max_line_bytes = max_line_bytes;
  o.skip_bad_lines = skip_bad_lines;
  o.namespaces = namespaces;
  o.read_threads = read_threads;
  o.skip_bad_files = skip_bad_files;
  o.encodings = per_source_values<std::string>(encodings, inputs, "", "--encoding", encoding_name);
  o.repair_invalid_utf8 = repair_invalid_utf8;
  return o;
}

}  // namespace bertpt::cli
