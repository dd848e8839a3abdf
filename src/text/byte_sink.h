// A file being written, optionally compressed (chosen from the output name: .gz, .zst, .xz, .bz2),
// that appears under its final name only when finish() succeeds (see AtomicFile).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "text/byte_source.h"

namespace bertpt::text {

// The compression implied by a file name's extension.
Compression compression_for_path(const std::string& path);

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(std::string_view data) = 0;
  // Flushes the compressor, then commits the file into place. Without it the output is discarded.
  virtual void finish() = 0;
  // Uncompressed bytes written so far.
  virtual uint64_t bytes_written() const = 0;
};

// level < 0 picks each codec's default.
std::unique_ptr<ByteSink> open_byte_sink(const std::string& path, Compression compression, int level = -1);

}  // namespace bertpt::text
