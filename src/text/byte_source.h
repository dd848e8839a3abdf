// Raw bytes of one input file, decompressed on the fly. The compression is recognised by its magic
// bytes (gzip 1f 8b, zstd 28 b5 2f fd, xz fd 37 7a 58 5a 00, bzip2 "BZh"), not by the file name.
// Concatenated streams (pigz, pbzip2, multi-frame zstd, xz) are read to the end. A truncated or
// corrupt stream throws BadInput naming the file and how many decompressed bytes were read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace bertpt::text {

enum class Compression { None, Gzip, Zstd, Xz, Bzip2 };
const char* compression_name(Compression c);

// Sniffs the first bytes of `head` (at least 6 bytes, or the whole file when shorter).
Compression detect_compression(const unsigned char* head, size_t size);

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` decompressed bytes into `buffer`; returns 0 only at the end of input.
  virtual size_t read(char* buffer, size_t capacity) = 0;
  // On-disk (compressed) bytes consumed so far, for progress.
  virtual uint64_t disk_bytes_read() const = 0;
  virtual Compression compression() const = 0;
  // The encoding the bytes were decoded from to UTF-8 (text/encoding.h); empty when read as they are.
  virtual std::string_view decoded_from() const { return {}; }
  // Sequences that encoding could not decode, each now U+FFFD. Safe to read from any thread.
  virtual uint64_t undecodable() const { return 0; }
};

// Opens `path` and picks the decoder from its magic bytes. Throws BadInput when it cannot be opened.
// A FIFO or character device (a pipe, process substitution, /dev/stdin) is read as a stream: read once
// to its end, its writer waited for as a blocking open waits; a stop request (common/stop_request.h)
// ends that wait and a wait for more input with Interrupted. Directories, sockets and block devices
// are refused.
// `threads` > 1: a bzip2 file (one stream or many) is decompressed on that many threads
// (text/multistream_bzip2.h).
std::unique_ptr<ByteSource> open_byte_source(const std::string& path, size_t threads = 1);

// "a directory", "a FIFO (named pipe)", ... for a stat() st_mode, in error messages.
const char* file_kind_in_words(unsigned mode);

}  // namespace bertpt::text
