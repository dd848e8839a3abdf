// The text column of a columnar file, cell by cell: Apache Parquet (how the Hugging Face hub publishes
// datasets, e.g. wikimedia/wikipedia's train-*.parquet) and Arrow IPC in its file or stream format
// (what `datasets` caches and `save_to_disk` writes). Read through Apache Arrow's own C++ readers
// (libarrow, libparquet), one row group (Parquet) or record batch (Arrow) at a time, `threads` of them
// decoded at once ahead of the caller: memory holds at most threads + 1 of them, whatever the file's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace bertpt::text {

enum class TableFormat { Parquet, ArrowFile, ArrowStream };
const char* table_format_name(TableFormat f);

// From a file's first bytes: "PAR1" (Parquet), "ARROW1" (Arrow IPC file), or an IPC stream's
// continuation marker ff ff ff ff followed by its first message (never valid UTF-8 text).
std::optional<TableFormat> detect_table_format(std::string_view head);

// Whether this build links Apache Arrow (CMakeLists.txt: found in .venv's pyarrow wheel or -DArrow_DIR).
bool table_formats_available();

class TableReader {
 public:
  // Opens `path` as `format` and finds the column `column` (Arrow string, large_string or
  // string_view). Throws BadInput naming the file: not readable as that format, no such column (the
  // message lists the columns there), a column that is not text, or a bertpt built without Arrow.
  TableReader(const std::string& path, TableFormat format, const std::string& column, size_t threads);
  ~TableReader();
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  // The next non-null cell in row order and its 0-based row; false after the last row. `text` stays
  // valid until the next call. Throws BadInput naming the file and row group on damaged data.
  bool next(std::string_view& text, uint64_t& row);

  uint64_t nulls() const;        // null cells skipped so far
  uint64_t text_bytes() const;   // bytes of the cells returned so far
  double fraction_read() const;  // of the file's row groups or batches consumed, for progress

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bertpt::text
