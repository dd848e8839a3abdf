#include "classify/labeled_data.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "common/error.h"
#include "text/blank.h"
#include "text/byte_source.h"
#include "text/line_reader.h"

namespace bertpt::classify {

namespace {

// LineReader cuts longer lines into pieces, which would silently break a record, so they are refused
// instead. No classification example is this long; a file that has such lines is the wrong file.
constexpr size_t kMaxLineBytes = size_t(4) << 20;

// Which example field an option names; picks the option to point at in hints.
enum class Role { Text, TextPair, Label };

const char* option_of(Role role) {
  switch (role) {
    case Role::Text: return "--text-field";
    case Role::TextPair: return "--text-pair-field";
    case Role::Label: return "--label-field";
  }
  return "?";
}

// "FILE:LINE: no field 'label' (fields: a, b, c)", the one message for a field a record lacks.
BadInput no_field(const std::string& where, const std::string& field, Role role, const std::vector<std::string>& fields,
                  const char* how = "choose the field with ") {
  return BadInput(where + ": no field '" + field + "' (fields: " + name_list(fields) + ")",
                  how + std::string(option_of(role)));
}

std::optional<size_t> parse_index(const std::string& s) {
  size_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Lines of a (possibly compressed) file, refusing lines LineReader would have to cut.
class Lines {
 public:
  explicit Lines(const std::string& path) : path_(path), reader_(text::open_byte_source(path), kMaxLineBytes) {}

  bool next(std::string_view& line) {
    if (!reader_.next(line)) return false;
    if (reader_.long_lines_split() > 0) {
      throw BadInput(at(path_, reader_.line_number()) + ": a line longer than 4 MiB",
                     "check that this is the right file and --format; an example must be shorter");
    }
    return true;
  }
  // The next line that is not blank; false at the end of the file.
  bool next_non_blank(std::string_view& line) {
    while (next(line)) {
      if (!text::is_blank(line)) return true;
    }
    return false;
  }
  uint64_t line_number() const { return reader_.line_number(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  text::LineReader reader_;
};

// One CSV record, read as Python's csv module reads RFC 4180: a quote opens a quoted field only at
// the start of a field, "" inside it is a quote, and text after the closing quote is kept. A quoted
// field may hold newlines; the record then goes on over the next lines (a CRLF inside it becomes
// "\n", as LineReader drops the '\r'). Blank lines between records are skipped, as pandas does.
bool next_csv_record(Lines& lines, std::vector<std::string>& fields, uint64_t& start_line) {
  std::string_view s;
  if (!lines.next_non_blank(s)) return false;
  start_line = lines.line_number();
  fields.assign(1, std::string());
  bool quoted = false;
  bool field_start = true;
  for (;;) {
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (quoted) {
        if (c != '"') {
          fields.back() += c;
        } else if (i + 1 < s.size() && s[i + 1] == '"') {
          fields.back() += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else if (c == ',') {
        fields.emplace_back();
        field_start = true;
        continue;
      } else if (c == '"' && field_start) {
        quoted = true;
      } else {
        fields.back() += c;
      }
      field_start = false;
    }
    if (!quoted) return true;
    if (!lines.next(s)) {
      throw BadInput(at(lines.path(), start_line) + ": a quoted field is still open at the end of the file",
                     "a field that starts with \" must end with \" (a quote inside it is written \"\"); "
                     "for text with bare quotes use --format tsv");
    }
    fields.back() += '\n';
  }
}

// One TSV record: split on tabs, quotes are ordinary characters (GLUE's files are written so).
bool next_tsv_record(Lines& lines, std::vector<std::string>& fields, uint64_t& start_line) {
  std::string_view s;
  if (!lines.next_non_blank(s)) return false;
  start_line = lines.line_number();
  fields.clear();
  for (;;) {
    const size_t tab = s.find('\t');
    fields.emplace_back(s.substr(0, tab));
    if (tab == std::string_view::npos) return true;
    s.remove_prefix(tab + 1);
  }
}

// The column of an option's field: a header name, else a 0-based index (the only way without a
// header). nullopt when neither names an existing column.
std::optional<size_t> find_column(const std::string& field, const std::vector<std::string>& header, size_t columns) {
  const auto named = std::find(header.begin(), header.end(), field);
  if (named != header.end()) return size_t(named - header.begin());
  const auto index = parse_index(field);
  if (index && *index < columns) return index;
  return std::nullopt;
}

// Names of the columns for messages: the header, else "0".."n-1".
std::vector<std::string> column_names(const std::vector<std::string>& header, size_t columns) {
  if (!header.empty()) return header;
  std::vector<std::string> names;
  for (size_t i = 0; i < columns; ++i) names.push_back(std::to_string(i));
  return names;
}

std::vector<Example> read_delimited(const std::string& path, const LabeledDataOptions& options, bool require_label,
                                    bool csv) {
  Lines lines(path);
  std::vector<std::string> fields, header;
  uint64_t line = 0;
  auto next = [&] { return csv ? next_csv_record(lines, fields, line) : next_tsv_record(lines, fields, line); };
  std::vector<Example> examples;
  if (!next()) return examples;
  const size_t columns = fields.size();
  const uint64_t first_line = line;  // of the header, or of the first record without one
  bool have_record = true;
  if (options.header) {
    header = fields;
    have_record = next();
  }
  const std::vector<std::string> names = column_names(header, columns);
  // A field that no column has is an error at the first line, unless it is an optional label.
  auto column = [&](const std::string& field, Role role, bool required) -> std::optional<size_t> {
    const auto c = find_column(field, header, columns);
    if (c || !required) return c;
    throw no_field(at(path, first_line), field, role, names,
                   options.header ? "choose the column (a header name or a 0-based index) with "
                                  : "without a header, pass a 0-based column index to ");
  };
  const size_t text_col = *column(options.text_field, Role::Text, true);
  std::optional<size_t> pair_col;
  if (!options.text_pair_field.empty()) pair_col = column(options.text_pair_field, Role::TextPair, true);
  const std::optional<size_t> label_col = column(options.label_field, Role::Label, require_label);

  for (; have_record; have_record = next()) {
    if (fields.size() != columns) {
      throw BadInput(at(path, line) + ": " + std::to_string(fields.size()) + " fields, but the " +
                         (options.header ? "header has " : "first record has ") + std::to_string(columns),
                     csv ? "quote fields that contain commas: \"a, b\""
                         : "TSV has no quoting: a tab inside a text splits it; remove it or use CSV");
    }
    Example e;
    e.line = line;
    e.text = fields[text_col];
    if (pair_col) e.text_pair = fields[*pair_col];
    if (label_col) e.label = fields[*label_col];
    if (require_label && e.label.empty()) {
      throw BadInput(at(path, line) + ": the label (field '" + options.label_field + "') is empty",
                     "every example of a training or validation split needs a label");
    }
    examples.push_back(std::move(e));
  }
  return examples;
}

// The value of a JSON text field; it must be a string.
std::string json_text(const nlohmann::ordered_json& row, const std::string& field, Role role,
                      const std::string& where) {
  const auto it = row.find(field);
  if (it == row.end()) {
    std::vector<std::string> keys;
    for (const auto& kv : row.items()) keys.push_back(kv.key());
    throw no_field(where, field, role, keys);
  }
  if (!it->is_string()) {
    throw BadInput(where + ": field '" + field + "' is " + it->type_name() + ", not a string",
                   std::string("a text field must be a JSON string; check ") + option_of(role));
  }
  return it->get<std::string>();
}

// A JSON label as text: strings as they are, integers in decimal, bools as "true"/"false". Empty
// when the label may be absent and is (missing or null).
std::string json_label(const nlohmann::ordered_json& row, const std::string& field, bool require_label,
                       const std::string& where) {
  const auto it = row.find(field);
  if (it == row.end() || it->is_null()) {
    if (!require_label) return {};
    if (it != row.end()) {
      throw BadInput(where + ": the label (field '" + field + "') is null",
                     "every example of a training or validation split needs a label");
    }
    std::vector<std::string> keys;
    for (const auto& kv : row.items()) keys.push_back(kv.key());
    throw no_field(where, field, Role::Label, keys);
  }
  std::string label;
  if (it->is_string()) {
    label = it->get<std::string>();
  } else if (it->is_number() || it->is_boolean()) {
    label = it->dump();  // a regression target keeps its digits: 3.8 -> "3.8" (classify/problem_type.h)
  } else {
    throw BadInput(where + ": the label (field '" + field + "') is " + it->dump() + ", not a string, number or bool",
                   "labels are class names, integer ids or (regression) numbers; check --label-field");
  }
  if (require_label && label.empty()) {
    throw BadInput(where + ": the label (field '" + field + "') is empty",
                   "every example of a training or validation split needs a label");
  }
  return label;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is what matters.
std::string json_error(const nlohmann::json::exception& e) {
  std::string_view m = e.what();
  if (const size_t b = m.find("] "); !m.empty() && m[0] == '[' && b != std::string_view::npos) m.remove_prefix(b + 2);
  return std::string(m);
}

std::vector<Example> read_jsonl(const std::string& path, const LabeledDataOptions& options, bool require_label) {
  Lines lines(path);
  std::vector<Example> examples;
  std::string_view s;
  const char* hint = "each line must be one JSON object (JSON Lines), e.g. {\"text\": \"...\", \"label\": \"pos\"}";
  while (lines.next_non_blank(s)) {
    const std::string where = at(path, lines.line_number());
    nlohmann::ordered_json row;
    try {
      row = nlohmann::ordered_json::parse(s);
    } catch (const nlohmann::json::exception& e) {
      throw BadInput(where + ": not valid JSON (" + json_error(e) + ")", hint);
    }
    if (!row.is_object()) throw BadInput(where + ": a JSON " + row.type_name() + ", not an object", hint);
    Example e;
    e.line = lines.line_number();
    e.text = json_text(row, options.text_field, Role::Text, where);
    if (!options.text_pair_field.empty()) e.text_pair = json_text(row, options.text_pair_field, Role::TextPair, where);
    e.label = json_label(row, options.label_field, require_label, where);
    examples.push_back(std::move(e));
  }
  return examples;
}

}  // namespace

std::string name_list(const std::vector<std::string>& names) {
  // A wide file or a many-class task would bury the message; the first names tell enough.
  constexpr size_t kMaxShown = 20;
  std::string s;
  for (size_t i = 0; i < names.size() && i < kMaxShown; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > kMaxShown) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

std::string resolve_format(const std::string& path, const std::string& format) {
  if (format == "jsonl" || format == "json") return "jsonl";
  if (format == "csv" || format == "tsv") return format;
  if (format != "auto") throw BadInput("unknown format '" + format + "'", "use one of: auto, jsonl, csv, tsv");
  // The compression is found by magic bytes when reading; only its suffix is dropped here.
  std::string name = lowercase(path.substr(path.find_last_of('/') + 1));
  for (const char* suffix : {".gz", ".gzip", ".zst", ".zstd", ".xz", ".bz2"}) {
    if (name.ends_with(suffix)) {
      name.resize(name.size() - std::string_view(suffix).size());
      break;
    }
  }
  for (const char* ext : {".jsonl", ".json", ".ndjson", ".txt"}) {
    if (name.ends_with(ext)) return "jsonl";
  }
  if (name.ends_with(".csv")) return "csv";
  if (name.ends_with(".tsv")) return "tsv";
  throw BadInput(path + ": cannot tell the format from the file name",
                 "name it .jsonl, .csv or .tsv, or pass --format jsonl|csv|tsv");
}

std::vector<Example> read_labeled_data(const std::string& path, const LabeledDataOptions& options, bool require_label) {
  const std::string format = resolve_format(path, options.format);
  std::vector<Example> examples = format == "jsonl" ? read_jsonl(path, options, require_label)
                                                    : read_delimited(path, options, require_label, format == "csv");
  if (examples.empty()) {
    throw BadInput(path + ": no examples (empty split)", "the file has no records" +
                                                             std::string(format == "jsonl" ? "" : " after the header") +
                                                             "; check the path and --format");
  }
  return examples;
}

}  // namespace bertpt::classify
