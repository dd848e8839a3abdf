#include "text/corpus_reader.h"

#include <algorithm>

#include "common/error.h"
#include "common/warning.h"
#include "text/blank.h"
#include "text/encoding.h"
#include "text/input_paths.h"
#include "text/json_field.h"
#include "text/line_reader.h"
#include "text/prefetch_source.h"
#include "text/raw_head.h"
#include "text/table_reader.h"
#include "text/utf8.h"
#include "text/wiki_pages.h"

namespace bertpt::text {

Format parse_format(const std::string& name) {
  if (name == "auto") return Format::Auto;
  if (name == "text" || name == "txt") return Format::Text;
  if (name == "jsonl" || name == "json") return Format::Jsonl;
  if (name == "wikiextractor" || name == "wiki") return Format::WikiExtractor;
  if (name == "mediawiki" || name == "xml") return Format::MediaWiki;
  if (name == "parquet") return Format::Parquet;
  if (name == "arrow") return Format::Arrow;
  throw BadInput("unknown format '" + name + "'",
                 "use one of: auto, text, jsonl, wikiextractor, mediawiki, parquet, arrow");
}

const char* format_name(Format f) {
  switch (f) {
    case Format::Auto: return "auto";
    case Format::Text: return "text";
    case Format::Jsonl: return "jsonl";
    case Format::WikiExtractor: return "wikiextractor";
    case Format::MediaWiki: return "mediawiki";
    case Format::Parquet: return "parquet";
    case Format::Arrow: return "arrow";
  }
  return "?";
}

DocPer parse_doc_per(const std::string& name) {
  if (name == "line") return DocPer::Line;
  if (name == "paragraph") return DocPer::Paragraph;
  if (name == "file") return DocPer::File;
  throw BadInput("unknown --doc-per '" + name + "'", "use one of: line, paragraph, file");
}

const char* doc_per_name(DocPer d) {
  switch (d) {
    case DocPer::Line: return "line";
    case DocPer::Paragraph: return "paragraph";
    case DocPer::File: return "file";
  }
  return "?";
}

namespace {

// Bytes of each file kept as they are read, for the message that refuses it as not text.
constexpr size_t kRawHeadBytes = size_t(1) << 16;

std::string_view trim_newlines(std::string_view s) {
  while (!s.empty() && (s.front() == '\n' || s.front() == ' ')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

// Decides the format of a file from its first bytes.
Format sniff_format(std::string_view head) {
  size_t i = 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) ++i;
  std::string_view h = head.substr(i);
  if (h.starts_with("<doc ") || h.starts_with("<doc>")) return Format::WikiExtractor;
  if (h.starts_with("<mediawiki") || (h.starts_with("<?xml") && h.find("<mediawiki") != std::string_view::npos)) {
    return Format::MediaWiki;
  }
  if (h.starts_with("{")) return Format::Jsonl;
  return Format::Text;
}

// The title="…" attribute of a WikiExtractor <doc> line.
std::string_view doc_title(std::string_view line) {
  size_t b = line.find("title=\"");
  if (b == std::string_view::npos) return {};
  b += 7;
  size_t e = line.find('"', b);
  return e == std::string_view::npos ? std::string_view{} : line.substr(b, e - b);
}

// What a file refused as not text was read as, and what was found in it (CorpusReader's judge_repairs).
struct NotText {
  std::string path;
  std::string head;         // its first bytes, decompressed, not decoded; empty when not kept (tables)
  bool compressed = false;  // offsets in `head` are in the decompressed data
  std::string encoding;     // what it was read as: "UTF-8", or the encoding --encoding or its mark named
  bool encoding_given = false;
  uint64_t bytes = 0, repaired = 0, nul = 0;
};

// The error that refuses it: a binary file (a header, a NUL byte that no UTF-16/32 text has, and where),
// else text in another encoding than the one it was read in, with the encoding it reads in when its
// first bytes tell (UTF-16/32 without a byte-order mark).
BadInput not_text_error(const NotText& f) {
  const bool utf8 = f.encoding == "UTF-8";
  const std::string counts = std::to_string(f.repaired) + " repairs in its first " + std::to_string(f.bytes) +
                             " bytes of text" + (utf8 ? "" : " decoded from " + f.encoding) + " (" +
                             std::to_string(f.nul) + " NUL bytes, " + std::to_string(f.repaired - f.nul) +
                             " invalid sequences)";
  if (const auto sign = binary_sign(f.head)) {
    return BadInput(f.path + ": this looks like a binary file, not " + f.encoding + " text: " + sign->what +
                        " at byte " + std::to_string(sign->offset) + (f.compressed ? " of its decompressed data" : "") +
                        "; " + counts,
                    "give text files only (a directory or glob input may have picked it up), or --skip-bad-files "
                    "to skip the files that cannot be read and go on");
  }
  // Without the head (a table's text), NUL bytes in a tenth of the text still say UTF-16/32.
  const std::string wide = !f.head.empty()                         ? wide_encoding_of(f.head)
                           : double(f.nul) > 0.1 * double(f.bytes) ? "UTF-16LE"
                                                                   : "";
  std::string hint;
  if (!wide.empty() && wide != f.encoding) {
    hint = "UTF-16 or UTF-32 without a byte-order mark? it reads as " + wide + ": pass --encoding " + wide +
           "; or --repair-invalid-utf8 to keep it repaired";
  } else if (f.encoding_given) {
    hint = "is " + f.encoding +
           " its encoding? pass --encoding with the right one (latin1, cp1252, gb18030, "
           "shift_jis …); or --repair-invalid-utf8 to keep it with U+FFFD for each bad sequence";
  } else if (!utf8) {
    hint = "its byte-order mark says " + f.encoding +
           ", its text does not: damaged? --repair-invalid-utf8 keeps "
           "it with U+FFFD for each bad sequence";
  } else {
    hint =
        "another encoding? pass --encoding NAME (latin1, cp1252, gb18030, shift_jis …); or "
        "--repair-invalid-utf8 to keep it with U+FFFD for each bad sequence";
  }
  return BadInput(f.path + ": " + counts + ": this is not " + f.encoding + " text", hint);
}

}  // namespace

struct CorpusReader::Impl {
  CorpusOptions options;
  std::vector<std::vector<InputFile>> files;  // per source
  std::vector<SourceStats> stats;
  uint64_t disk_total = 0;
  uint64_t disk_done = 0;  // of closed files
  bool streams = false;    // an input is a stream: the total size is unknown

  size_t source = 0, file = 0;  // the next file to open is files[source][file]
  std::unique_ptr<LineReader> reader;
  std::unique_ptr<WikiPageStream> wiki;  // over `reader`, when the file is a MediaWiki dump
  std::unique_ptr<TableReader> table;    // instead of `reader`, when the file is Parquet or Arrow
  uint64_t file_size = 0;                // on-disk bytes of the open file
  std::string path;
  Format format = Format::Text;
  bool stream = false;           // the open file is a stream (it cannot seek)
  uint64_t accounted_bytes = 0;  // of the open file, already added to stats
  uint64_t accounted_undecodable = 0;
  // The open file's text bytes seen by clean(), and where the source's repair counts stood when it
  // was opened: its own repairs are judged against its own bytes.
  uint64_t file_text_bytes = 0, repairs_at_open = 0, nul_at_open = 0;
  // The open file's first bytes, decompressed but not decoded, for the message that refuses it as not text.
  std::shared_ptr<RawHead> raw_head;
  bool compressed = false;
  bool finished = false;

  std::string doc;      // assembled multi-line document
  std::string scratch;  // repaired line
  std::string field;    // decoded JSON value

  SourceStats& st() { return stats[source]; }

  bool file_open() const { return reader || table; }

  void account_bytes() {
    // While a dump's pages are parsed on worker threads, its reader is theirs: their counters come with the pages.
    uint64_t now = table ? table->text_bytes() : wiki ? wiki->bytes_read() : reader->bytes_read();
    st().bytes += now - accounted_bytes;
    accounted_bytes = now;
    if (reader) {  // sequences the file's encoding could not decode are repairs too
      const uint64_t undecodable = reader->source().undecodable();
      st().invalid_utf8 += undecodable - accounted_undecodable;
      accounted_undecodable = undecodable;
    }
  }

  uint64_t repairs() { return st().invalid_utf8 + st().nul_removed; }

  // Refuses the open file when more than kMaxRepairedShare of its bytes needed repair: it is not text in
  // the encoding it was read in (another encoding, or binary: not_text_error says which). Judged once
  // 64 KiB are read, and at its end.
  void judge_repairs(bool at_end) {
    if (options.repair_invalid_utf8 || !file_open()) return;
    account_bytes();
    const uint64_t bytes = file_text_bytes, repaired = repairs() - repairs_at_open;
    if (repaired < kMinRepairsRefused || double(repaired) <= kMaxRepairedShare * double(bytes)) return;
    if (!at_end && bytes < (uint64_t(1) << 16)) return;
    NotText f;
    f.path = path;
    f.head = raw_head && !table ? raw_head->bytes() : "";
    f.compressed = compressed;
    f.encoding = reader && !reader->source().decoded_from().empty() ? std::string(reader->source().decoded_from())
                                                                    : "UTF-8";
    f.encoding_given = source < options.encodings.size() && !options.encodings[source].empty();
    f.bytes = bytes, f.repaired = repaired, f.nul = st().nul_removed - nul_at_open;
    throw not_text_error(f);
  }

  bool open_next() {
    while (source < files.size()) {
      if (file < files[source].size()) {
        const InputFile& f = files[source][file++];
        path = f.path;
        file_size = f.size;
        stream = f.stream;
        accounted_bytes = accounted_undecodable = 0;
        file_text_bytes = 0, repairs_at_open = repairs(), nul_at_open = st().nul_removed;
        ++st().files;
        st().disk_bytes += f.size;
        open_file();
        return true;
      }
      ++source;
      file = 0;
    }
    return false;
  }

  // Opens `path`: a table (Parquet, Arrow) through TableReader, anything else as a byte stream.
  void open_file() {
    auto bytes = open_byte_source(path, options.read_threads);
    Compression compression = bytes->compression();
    // Decompression gets its own thread; plain files are read faster than a thread hand-off.
    if (compression != Compression::None) bytes = prefetch(std::move(bytes));
    compressed = compression != Compression::None;
    raw_head = std::make_shared<RawHead>(kRawHeadBytes);
    bytes = copy_head(std::move(bytes), raw_head);
    bytes = decode_to_utf8(std::move(bytes), source < options.encodings.size() ? options.encodings[source] : "", path);
    if (!bytes->decoded_from().empty()) ++st().files_decoded;
    reader = std::make_unique<LineReader>(std::move(bytes), options.max_line_bytes);
    std::string_view head = reader->peek(4096);
    std::optional<TableFormat> table_format = detect_table_format(head);
    if (table_format && stream) {
      throw BadInput(path + " is a " + (*table_format == TableFormat::Parquet ? "Parquet" : "Arrow") +
                         " file, read by seeking, which a stream cannot do",
                     "save it to a file first and give its path");
    }
    format = options.format != Format::Auto ? options.format
             : table_format                 ? (*table_format == TableFormat::Parquet ? Format::Parquet : Format::Arrow)
                                            : sniff_format(head);
    if (format == Format::MediaWiki) {
      wiki = std::make_unique<WikiPageStream>(*reader, path, options.namespaces, options.read_threads);
    }
    if (options.format == Format::Auto && !table_format && compression == Compression::None &&
        (path.ends_with(".parquet") || path.ends_with(".arrow"))) {
      // Read as text it would give garbage documents: most likely a cut-off or failed download.
      throw BadInput(path + " is named like a Parquet/Arrow file but does not start like one",
                     "the file is damaged (a download cut short, or an error page saved under that name)");
    }
    if (format != Format::Parquet && format != Format::Arrow) return;
    if (compression != Compression::None) {
      throw BadInput(path + ": a " + compression_name(compression) + "-compressed table file",
                     "Parquet and Arrow files compress their own columns: decompress the file first");
    }
    if (!table_format || (format == Format::Parquet) != (*table_format == TableFormat::Parquet)) {
      throw BadInput(path + " is not " + (format == Format::Parquet ? "a Parquet" : "an Arrow IPC") +
                         " file (its first bytes say otherwise)",
                     "leave --format at auto to detect each file's format");
    }
    reader.reset();
    table = std::make_unique<TableReader>(path, *table_format, options.text_field, options.read_threads);
  }

  void close_current() {
    wiki.reset();
    if (reader || table) account_bytes();
    if (table) {
      st().nulls_skipped += table->nulls();
      table.reset();
      disk_done += file_size;
    }
    if (reader) {
      st().long_lines_split += reader->long_lines_split();
      disk_done += reader->source().disk_bytes_read();
      reader.reset();
    }
  }

  // Under skip_bad_files: the file that threw `e` is given up, what it gave before stays.
  void give_up_file(const BadInput& e) {
    warn(std::string(e.what()) + " — skipping the rest of this file (--skip-bad-files)");
    ++st().bad_files_skipped;
    try {
      close_current();
    } catch (const BadInput&) {
      reader.reset(), table.reset();  // a damaged stream may throw again while being closed
    }
  }

  std::string_view clean(std::string_view line, std::string& buf) {
    RepairCounts c;
    std::string_view out = clean_utf8(line, buf, c);
    file_text_bytes += line.size();
    st().invalid_utf8 += c.invalid;
    st().nul_removed += c.nul;
    if (c.invalid + c.nul > 0) judge_repairs(false);
    return out;
  }

  bool emit(std::string_view text, uint64_t line, Document& d) {
    if (is_blank(text)) {
      ++st().empty_skipped;
      return false;
    }
    ++st().documents;
    st().characters += count_code_points(text);
    d.text = text;
    d.source_index = source;
    d.path = path;
    d.line = line;
    account_bytes();
    if (repairs() != repairs_at_open) judge_repairs(false);
    return true;
  }

  // Each read_* returns true with a document, false when the file is exhausted.
  bool read_lines(Document& d) {
    std::string_view line;
    while (reader->next(line)) {
      if (emit(clean(line, scratch), reader->line_number(), d)) return true;
    }
    return false;
  }

  bool read_blocks(Document& d, bool whole_file) {
    std::string_view line;
    doc.clear();
    uint64_t start = 0;
    bool any_line = false;
    while (reader->next(line)) {
      std::string_view text = clean(line, scratch);
      if (!whole_file && is_blank(text)) {
        if (!doc.empty() && emit(doc, start, d)) return true;
        doc.clear();
        continue;
      }
      if (doc.empty()) start = reader->line_number();
      if (any_line || !doc.empty()) doc.push_back('\n');
      doc.append(text);
      any_line = whole_file;
    }
    if (whole_file) return emit(trim_newlines(doc), 1, d);
    return !doc.empty() && emit(doc, start, d);
  }

  bool read_jsonl(Document& d) {
    std::string_view line;
    while (reader->next(line)) {
      std::string_view text = clean(line, scratch);
      if (is_blank(text)) continue;
      JsonFieldResult r = extract_json_string_field(text, options.text_field, field);
      std::string problem;
      switch (r.status) {
        case JsonFieldStatus::Found: break;
        case JsonFieldStatus::Missing: problem = "has no field \"" + options.text_field + "\""; break;
        case JsonFieldStatus::NotString: problem = "field \"" + options.text_field + "\" is not a string"; break;
        case JsonFieldStatus::Malformed: problem = "is not valid JSON (" + r.error + ")"; break;
      }
      if (!problem.empty()) {
        if (options.skip_bad_lines) {
          ++st().bad_lines_skipped;
          continue;
        }
        throw BadInput(at(path, reader->line_number()) + ": JSONL line " + problem,
                       r.status == JsonFieldStatus::Malformed
                           ? "fix the line, or pass --skip-bad-lines to skip such lines"
                           : "choose the field with --text-field, or pass --skip-bad-lines");
      }
      st().invalid_utf8 += r.bad_surrogates;
      // Escapes can produce NUL (\u0000): remove them like raw NUL bytes.
      std::string_view value = clean(field, doc);
      if (emit(value, reader->line_number(), d)) return true;
    }
    return false;
  }

  bool read_wikiextractor(Document& d) {
    std::string_view line;
    bool in_doc = false, title_pending = false;
    std::string title;
    uint64_t start = 0;
    doc.clear();
    while (reader->next(line)) {
      std::string_view text = clean(line, scratch);
      if (!in_doc) {
        if (text.starts_with("<doc")) {
          in_doc = true;
          title_pending = true;
          title = std::string(doc_title(text));
          start = reader->line_number();
          doc.clear();
        }
        continue;  // text outside <doc> (wrappers such as <root>) is not content
      }
      if (text.starts_with("</doc>")) {
        in_doc = false;
        if (emit(trim_newlines(doc), start, d)) return true;
        continue;
      }
      if (title_pending) {
        // WikiExtractor repeats the title as the first line; HF's wikipedia rows leave it out.
        if (is_blank(text)) continue;
        title_pending = false;
        if (text == title) continue;
      }
      doc.append(text);
      doc.push_back('\n');
    }
    // An unterminated <doc> at the end of the file still yields its text.
    return in_doc && emit(trim_newlines(doc), start, d);
  }

  // One document per page of the kept namespaces, redirects skipped; all counted.
  bool read_mediawiki(Document& d) {
    ProsePage page;
    while (wiki->next(page)) {
      ++st().pages;
      if (!page.kept) {
        ++st().pages_other_namespace;
        continue;
      }
      if (page.redirect) {
        ++st().pages_redirect;
        continue;
      }
      doc = std::move(page.text);
      if (emit(clean(doc, scratch), page.line, d)) return true;
    }
    return false;
  }

  // One document per non-null cell of the text column (nulls counted).
  bool read_table(Document& d) {
    std::string_view text;
    uint64_t row = 0;
    while (table->next(text, row)) {
      if (emit(clean(text, scratch), row + 1, d)) return true;
    }
    return false;
  }

  bool read_one(Document& d) {
    switch (format) {
      case Format::MediaWiki: return read_mediawiki(d);
      case Format::Parquet:
      case Format::Arrow: return read_table(d);
      case Format::Jsonl: return read_jsonl(d);
      case Format::WikiExtractor: return read_wikiextractor(d);
      case Format::Text:
      case Format::Auto:
        switch (options.doc_per) {
          case DocPer::Line: return read_lines(d);
          case DocPer::Paragraph: return read_blocks(d, false);
          case DocPer::File: return read_blocks(d, true);
        }
    }
    return false;
  }
};

CorpusReader::CorpusReader(CorpusOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.inputs.empty()) throw BadInput("no input given", "pass --input PATH (a file, directory or glob)");
  if (options.max_line_bytes > kMaxLineBytesLimit) {
    // The line reader's buffer is twice this; a terabyte here would be an allocation that names nothing.
    throw BadInput("--max-line-bytes " + std::to_string(options.max_line_bytes) + " is more than " +
                       std::to_string(kMaxLineBytesLimit) + " (256 MiB)",
                   "longer lines are cut, not lost: the default 1048576 suits any text corpus");
  }
  if (options.encodings.size() > options.inputs.size()) {
    throw BadInput("--encoding is given for " + std::to_string(options.encodings.size()) + " sources but there are " +
                   std::to_string(options.inputs.size()) + " --input");
  }
  for (const auto& e : options.encodings) {
    if (!e.empty()) check_encoding_name(e, "--encoding");
  }
  if (std::count(options.inputs.begin(), options.inputs.end(), "-") > 1) {
    throw BadInput("standard input (-) is given twice", "a stream is read once: give - as one --input only");
  }
  impl_->options = std::move(options);
  for (const auto& input : impl_->options.inputs) {
    impl_->files.push_back(expand_input(input));
    SourceStats s;
    s.name = input;
    impl_->stats.push_back(s);
    for (const auto& f : impl_->files.back()) {
      impl_->disk_total += f.size;
      impl_->streams |= f.stream;
    }
  }
}

CorpusReader::~CorpusReader() = default;

bool CorpusReader::next(Document& doc) {
  Impl& m = *impl_;
  if (m.finished) return false;
  for (;;) {
    try {
      if (!m.file_open() && !m.open_next()) break;
      if (m.read_one(doc)) return true;
      m.judge_repairs(true);
      m.close_current();
    } catch (const BadInput& e) {
      if (!m.options.skip_bad_files) throw;
      m.give_up_file(e);
    }
  }
  m.finished = true;
  SourceStats t = total();
  if (t.documents == 0) {
    throw BadInput("the input holds no documents (" + std::to_string(t.files) + " files, " + std::to_string(t.bytes) +
                       " bytes, " + std::to_string(t.empty_skipped) + " empty documents)",
                   "check --format, --doc-per and --text-field, or give non-empty inputs");
  }
  return false;
}

void CorpusReader::skip_rest_of_source() {
  Impl& m = *impl_;
  if (m.file_open()) m.close_current();
  if (m.source < m.files.size()) {
    for (size_t f = m.file; f < m.files[m.source].size(); ++f) m.disk_done += m.files[m.source][f].size;
    ++m.source;
    m.file = 0;
  }
}

const std::vector<SourceStats>& CorpusReader::stats() const { return impl_->stats; }

SourceStats CorpusReader::total() const {
  SourceStats t;
  t.name = "total";
  for (const auto& s : impl_->stats) t += s;
  return t;
}

uint64_t CorpusReader::disk_bytes_read() const {
  const Impl& m = *impl_;
  if (m.table) return m.disk_done + uint64_t(m.table->fraction_read() * double(m.file_size));
  if (m.wiki) return m.disk_done + m.wiki->disk_bytes_read();
  return m.disk_done + (m.reader ? m.reader->source().disk_bytes_read() : 0);
}

uint64_t CorpusReader::disk_bytes_total() const { return impl_->streams ? 0 : impl_->disk_total; }

bool CorpusReader::has_streams() const { return impl_->streams; }

const CorpusOptions& CorpusReader::options() const { return impl_->options; }

}  // namespace bertpt::text
