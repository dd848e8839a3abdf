#include "text/raw_head.h"

#include <algorithm>
#include <cstdio>

namespace bertpt::text {

std::string RawHead::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

void RawHead::add(const char* data, size_t size) {
  if (full_.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(mutex_);
  bytes_.append(data, std::min(size, keep_ - bytes_.size()));
  if (bytes_.size() == keep_) full_.store(true, std::memory_order_relaxed);
}

namespace {

class HeadCopySource final : public ByteSource {
 public:
  HeadCopySource(std::unique_ptr<ByteSource> inner, std::shared_ptr<RawHead> head)
      : inner_(std::move(inner)), head_(std::move(head)) {}
  size_t read(char* out, size_t cap) override {
    const size_t n = inner_->read(out, cap);
    head_->add(out, n);
    return n;
  }
  uint64_t disk_bytes_read() const override { return inner_->disk_bytes_read(); }
  Compression compression() const override { return inner_->compression(); }
  std::string_view decoded_from() const override { return inner_->decoded_from(); }
  uint64_t undecodable() const override { return inner_->undecodable(); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::shared_ptr<RawHead> head_;
};

struct Magic {
  std::string_view bytes;
  const char* what;
};

// Headers of the binary files most likely to be given by mistake (a glob that matched them, a download
// that is not what it was named). MZ is a Windows executable only with NUL bytes in its DOS header.
constexpr Magic kMagics[] = {
    {"\x7f"
     "ELF",
     "an ELF executable header"},
    {"\x89PNG\r\n\x1a\n", "a PNG image header"},
    {"\xff\xd8\xff", "a JPEG image header"},
    {"GIF87a", "a GIF image header"},
    {"GIF89a", "a GIF image header"},
    {"%PDF-", "a PDF header"},
    {"PK\x03\x04", "a ZIP archive header (zip, docx, xlsx, jar …)"},
    {"7z\xbc\xaf\x27\x1c", "a 7-Zip archive header"},
    {"Rar!\x1a\x07", "a RAR archive header"},
    {std::string_view("SQLite format 3\0", 16), "an SQLite database header"},
    {"\xca\xfe\xba\xbe", "a Java class or Mach-O universal binary header"},
    {"\xcf\xfa\xed\xfe", "a Mach-O executable header"},
    {"\xce\xfa\xed\xfe", "a Mach-O executable header"},
    {std::string_view("\0asm", 4), "a WebAssembly module header"},
};

std::string hex_of(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

uint32_t unit_at(std::string_view h, size_t i, size_t width, bool little) {
  uint32_t u = 0;
  for (size_t k = 0; k < width; ++k) {
    const uint32_t byte = static_cast<unsigned char>(h[i + (little ? k : width - 1 - k)]);
    u |= byte << (8 * k);
  }
  return u;
}

// Code units of `width` bytes that no text in that encoding has: U+0000, an unpaired surrogate (UTF-16),
// a surrogate or a value past U+10FFFF (UTF-32). A pair cut by the end of `h` is not counted.
size_t bad_units(std::string_view h, size_t width, bool little) {
  const size_t units = h.size() / width;
  size_t bad = 0;
  for (size_t i = 0; i < units; ++i) {
    const uint32_t u = unit_at(h, i * width, width, little);
    if (u == 0 || (width == 4 && (u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF)))) {
      ++bad;
    } else if (width == 2 && u >= 0xD800 && u <= 0xDBFF) {  // a high surrogate: a low one must follow
      if (i + 1 == units) break;
      const uint32_t next = unit_at(h, (i + 1) * width, width, little);
      if (next >= 0xDC00 && next <= 0xDFFF) {
        ++i;
      } else {
        ++bad;
      }
    } else if (width == 2 && u >= 0xDC00 && u <= 0xDFFF) {
      ++bad;
    }
  }
  return bad;
}

}  // namespace

std::unique_ptr<ByteSource> copy_head(std::unique_ptr<ByteSource> inner, std::shared_ptr<RawHead> head) {
  return std::make_unique<HeadCopySource>(std::move(inner), std::move(head));
}

std::string wide_encoding_of(std::string_view head) {
  // ASCII and Latin text leaves its NUL bytes in the high byte of each code unit: that says the byte order.
  size_t nul_at[4] = {};
  for (size_t i = 0; i < head.size(); ++i) nul_at[i % 4] += head[i] == '\0';
  if (nul_at[0] + nul_at[1] + nul_at[2] + nul_at[3] == 0) return "";
  const bool little16 = nul_at[1] + nul_at[3] >= nul_at[0] + nul_at[2];
  const bool little32 = nul_at[3] >= nul_at[0];
  if (head.size() >= 2 && bad_units(head, 2, little16) <= head.size() / 2 / 1000) {
    return little16 ? "UTF-16LE" : "UTF-16BE";
  }
  if (head.size() >= 4 && bad_units(head, 4, little32) <= head.size() / 4 / 1000) {
    return little32 ? "UTF-32LE" : "UTF-32BE";
  }
  return "";
}

std::optional<BinarySign> binary_sign(std::string_view head) {
  for (const Magic& m : kMagics) {
    if (head.starts_with(m.bytes)) return BinarySign{0, std::string(m.what) + " (" + hex_of(m.bytes) + ")"};
  }
  const size_t nul = head.find('\0');
  if (head.starts_with("MZ") && nul < 64) return BinarySign{0, "a Windows executable header (4d 5a)"};
  if (nul == std::string_view::npos || !wide_encoding_of(head).empty()) return std::nullopt;
  return BinarySign{nul, "a NUL byte"};
}

}  // namespace bertpt::text
