// The first bytes of a file as they are read (decompressed, not yet decoded), kept for the message that
// refuses the file as not text: whether it looks like a binary file (an executable's, an image's or an
// archive's header; NUL bytes that no UTF-16/32 text would have) and, where it does not, in which
// UTF-16/32 encoding it would read as text.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "text/byte_source.h"

namespace bertpt::text {

// The first `keep` bytes that passed through copy_head's source. Safe from any thread: the source may
// be read on a worker thread while the reader's thread asks.
class RawHead {
 public:
  explicit RawHead(size_t keep) : keep_(keep) {}
  std::string bytes() const;
  void add(const char* data, size_t size);

 private:
  const size_t keep_;
  mutable std::mutex mutex_;
  std::string bytes_;
  std::atomic<bool> full_{false};
};

// `inner` as it is, copying its first bytes into `head`.
std::unique_ptr<ByteSource> copy_head(std::unique_ptr<ByteSource> inner, std::shared_ptr<RawHead> head);

// What shows that `head` (a file's first bytes) is binary: where, and what was found there
// ("an ELF executable header (7f 45 4c 46)" at 0, "a NUL byte" at the first one).
struct BinarySign {
  uint64_t offset = 0;
  std::string what;
};
// A known binary format's header at byte 0, else a NUL byte where `head` is not UTF-16/32 text either;
// nothing for text (UTF-8, a legacy 8-bit encoding, UTF-16/32).
std::optional<BinarySign> binary_sign(std::string_view head);

// "UTF-16LE", "UTF-16BE", "UTF-32LE" or "UTF-32BE": the encoding in which `head`, which has NUL bytes,
// reads as text (no U+0000, no unpaired surrogate, nothing past U+10FFFF; 1 in 1000 code units may be
// wrong), the byte order told by where its NUL bytes are; "" when it has none or reads as neither.
std::string wide_encoding_of(std::string_view head);

}  // namespace bertpt::text
