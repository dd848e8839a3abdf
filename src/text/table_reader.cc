#include "text/table_reader.h"

#include <cstring>

#include "common/error.h"

#if BERTPT_HAVE_ARROW
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/reader.h>
#include <parquet/arrow/reader.h>
#include <parquet/exception.h>

#include <atomic>

#include "common/ordered_loader.h"
#endif

namespace bertpt::text {

const char* table_format_name(TableFormat f) {
  switch (f) {
    case TableFormat::Parquet: return "Parquet";
    case TableFormat::ArrowFile: return "Arrow IPC file";
    case TableFormat::ArrowStream: return "Arrow IPC stream";
  }
  return "?";
}

std::optional<TableFormat> detect_table_format(std::string_view head) {
  if (head.substr(0, 4) == "PAR1") return TableFormat::Parquet;
  if (head.substr(0, 6) == "ARROW1") return TableFormat::ArrowFile;
  // A stream's messages start with the continuation marker and a little-endian metadata length.
  if (head.size() >= 8 && head.substr(0, 4) == std::string_view("\xff\xff\xff\xff", 4)) return TableFormat::ArrowStream;
  return std::nullopt;
}

#if !BERTPT_HAVE_ARROW

bool table_formats_available() { return false; }

struct TableReader::Impl {};

TableReader::TableReader(const std::string& path, TableFormat format, const std::string&, size_t) {
  throw BadInput(path + " is a " + table_format_name(format) + " file, but this bertpt was built without Apache Arrow",
                 "run scripts/setup (it installs the pyarrow wheel, whose C++ libraries bertpt links) and rebuild, "
                 "or configure with -DArrow_DIR=… pointing at an Arrow C++ install");
}
TableReader::~TableReader() = default;
bool TableReader::next(std::string_view&, uint64_t&) { return false; }
uint64_t TableReader::nulls() const { return 0; }
uint64_t TableReader::text_bytes() const { return 0; }
double TableReader::fraction_read() const { return 1.0; }

#else

bool table_formats_available() { return true; }

namespace {

using Column = std::shared_ptr<arrow::ChunkedArray>;

std::string damaged_hint(TableFormat f) {
  return f == TableFormat::Parquet ? "the file is damaged or truncated (a download cut short?): fetch it again"
                                   : "the file is damaged or truncated: write it again (datasets' save_to_disk)";
}

// Arrow's messages may span lines ("Couldn't deserialize thrift: …\nDeserializing page header
// failed.\n"): an error here is one line.
std::string one_line(std::string_view message) {
  std::string out;
  for (char c : message) {
    if (c == '\n' || c == '\r') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

template <typename T>
T value_or_throw(arrow::Result<T> r, const std::string& where, const std::string& hint) {
  if (!r.ok()) throw BadInput(where + ": " + one_line(r.status().message()), hint);
  return std::move(r).ValueOrDie();
}

bool is_text_type(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING || t.id() == arrow::Type::STRING_VIEW;
}

// The index of `column` in `schema`, checked to be text.
int find_text_column(const arrow::Schema& schema, const std::string& column, const std::string& path) {
  int i = schema.GetFieldIndex(column);
  if (i < 0) {
    std::string names;
    for (const auto& f : schema.fields()) names += (names.empty() ? "" : ", ") + f->name();
    throw BadInput(path + " has no column \"" + column + "\" (its columns: " + names + ")",
                   "choose the text column with --text-field");
  }
  const auto& type = *schema.field(i)->type();
  if (!is_text_type(type)) {
    throw BadInput(path + ": column \"" + column + "\" holds " + type.ToString() + ", not text (string)",
                   "choose the text column with --text-field");
  }
  return i;
}

// Opens the file once per worker: Arrow's readers are not documented as safe for concurrent calls.
struct Opened {
  std::shared_ptr<arrow::io::ReadableFile> file;
  std::unique_ptr<parquet::arrow::FileReader> parquet;
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> arrow_file;
  std::shared_ptr<arrow::ipc::RecordBatchStreamReader> arrow_stream;
  std::shared_ptr<arrow::Schema> schema;
  int units = -1;  // row groups or batches; -1 for a stream (unknown until its end)
};

Opened open_table(const std::string& path, TableFormat format) {
  Opened o;
  std::string hint = damaged_hint(format);
  o.file = value_or_throw(arrow::io::ReadableFile::Open(path), path, "check that the file exists and is readable");
  auto* pool = arrow::system_memory_pool();  // malloc: no allocator of Arrow's own beside bertpt's
  try {
    switch (format) {
      case TableFormat::Parquet: {
        o.parquet = value_or_throw(parquet::arrow::OpenFile(o.file, pool), path, hint);
        arrow::Status s = o.parquet->GetSchema(&o.schema);
        if (!s.ok()) throw BadInput(path + ": " + one_line(s.message()), hint);
        o.units = o.parquet->num_row_groups();
        break;
      }
      case TableFormat::ArrowFile: {
        auto options = arrow::ipc::IpcReadOptions::Defaults();
        options.memory_pool = pool;
        o.arrow_file = value_or_throw(arrow::ipc::RecordBatchFileReader::Open(o.file, options), path, hint);
        o.schema = o.arrow_file->schema();
        o.units = o.arrow_file->num_record_batches();
        break;
      }
      case TableFormat::ArrowStream: {
        auto options = arrow::ipc::IpcReadOptions::Defaults();
        options.memory_pool = pool;
        o.arrow_stream = value_or_throw(arrow::ipc::RecordBatchStreamReader::Open(o.file, options), path, hint);
        o.schema = o.arrow_stream->schema();
        break;
      }
    }
  } catch (const parquet::ParquetException& e) {
    throw BadInput(path + ": " + one_line(e.what()), hint);
  }
  return o;
}

}  // namespace

struct TableReader::Impl {
  std::string path;
  TableFormat format;
  int column = 0;
  std::vector<Opened> opened;  // per worker
  std::unique_ptr<OrderedLoader<Column> > loader;
  std::atomic<int> units_done{0};

  Column unit;  // the row group or batch being read
  int chunk = 0;
  int64_t cell = 0;
  uint64_t row = 0;  // of the file, 0-based, of the next cell
  uint64_t nulls = 0, text_bytes = 0;

  std::optional<Column> load(size_t index, size_t worker) {
    Opened& o = opened[worker];
    std::string where = path + " (" + (format == TableFormat::Parquet ? "row group " : "record batch ") +
                        std::to_string(index) + ")";
    try {
      if (o.arrow_stream) {
        auto batch = value_or_throw(o.arrow_stream->Next(), where, damaged_hint(format));
        if (!batch) return std::nullopt;
        return std::make_shared<arrow::ChunkedArray>(batch->column(column));
      }
      if (int(index) >= o.units) return std::nullopt;
      if (o.parquet) {
        auto table = value_or_throw(o.parquet->ReadRowGroup(int(index), {column}), where, damaged_hint(format));
        return table->column(0);
      }
      auto batch = value_or_throw(o.arrow_file->ReadRecordBatch(int(index)), where, damaged_hint(format));
      return std::make_shared<arrow::ChunkedArray>(batch->column(column));
    } catch (const parquet::ParquetException& e) {
      throw BadInput(where + ": " + one_line(e.what()), damaged_hint(format));
    }
  }

  // The cell at (chunk, cell) of `unit`: false when null.
  bool view(std::string_view& text) const {
    const arrow::Array& a = *unit->chunk(chunk);
    if (a.IsNull(cell)) return false;
    switch (a.type_id()) {
      case arrow::Type::STRING: text = static_cast<const arrow::StringArray&>(a).GetView(cell); break;
      case arrow::Type::LARGE_STRING: text = static_cast<const arrow::LargeStringArray&>(a).GetView(cell); break;
      default: text = static_cast<const arrow::StringViewArray&>(a).GetView(cell); break;
    }
    return true;
  }
};

TableReader::TableReader(const std::string& path, TableFormat format, const std::string& column, size_t threads)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.format = format;
  m.opened.push_back(open_table(path, format));
  m.column = find_text_column(*m.opened[0].schema, column, path);
  // A stream can only be read in order; row groups and file batches are read `threads` at a time.
  size_t workers = m.opened[0].units < 0 ? 1 : std::max<size_t>(1, std::min<size_t>(threads, m.opened[0].units));
  for (size_t w = 1; w < workers; ++w) m.opened.push_back(open_table(path, format));
  m.loader = std::make_unique<OrderedLoader<Column> >([&m](size_t i, size_t w) { return m.load(i, w); }, workers,
                                                      workers);
}

TableReader::~TableReader() = default;

bool TableReader::next(std::string_view& text, uint64_t& row) {
  Impl& m = *impl_;
  for (;;) {
    while (m.unit && m.chunk < m.unit->num_chunks()) {
      if (m.cell >= m.unit->chunk(m.chunk)->length()) {
        ++m.chunk, m.cell = 0;
        continue;
      }
      bool present = m.view(text);
      row = m.row++;
      ++m.cell;
      if (!present) {
        ++m.nulls;
        continue;
      }
      m.text_bytes += text.size();
      return true;
    }
    if (m.unit) ++m.units_done;
    std::optional<Column> u = m.loader->next();
    if (!u) {
      m.unit.reset();
      return false;
    }
    m.unit = std::move(*u);
    m.chunk = 0, m.cell = 0;
  }
}

uint64_t TableReader::nulls() const { return impl_->nulls; }
uint64_t TableReader::text_bytes() const { return impl_->text_bytes; }

double TableReader::fraction_read() const {
  int units = impl_->opened[0].units;
  if (units <= 0) return 0.0;
  return double(impl_->units_done.load()) / units;
}

#endif

}  // namespace bertpt::text
