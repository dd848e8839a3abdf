#include "text/encoding.h"

#include <iconv.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/error.h"

namespace bertpt::text {

namespace {

constexpr size_t kInChunk = 1 << 16;
// Decoding stops once half of the output chunk is used; one more input chunk (at most 3 output bytes per
// input byte, a single-byte code page's €) then always fits in the other half.
constexpr size_t kOutChunk = 1 << 18;
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = char(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// Bytes to skip past a sequence iconv cannot decode: one code unit of the encoding.
size_t code_unit_of(std::string_view encoding) {
  const std::string u = upper(encoding);
  if (u.starts_with("UTF-16") || u.starts_with("UTF16") || u.starts_with("UCS-2") || u.starts_with("UCS2")) return 2;
  if (u.starts_with("UTF-32") || u.starts_with("UTF32") || u.starts_with("UCS-4") || u.starts_with("UCS4")) return 4;
  return 1;
}

// The first bytes, read ahead for sniffing, handed out again before the rest of `inner`.
class ReplaySource final : public ByteSource {
 public:
  ReplaySource(std::unique_ptr<ByteSource> inner, std::string head)
      : inner_(std::move(inner)), head_(std::move(head)) {}
  size_t read(char* out, size_t cap) override {
    if (pos_ < head_.size()) {
      const size_t n = std::min(cap, head_.size() - pos_);
      std::memcpy(out, head_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return inner_->read(out, cap);
  }
  uint64_t disk_bytes_read() const override { return inner_->disk_bytes_read(); }
  Compression compression() const override { return inner_->compression(); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string head_;
  size_t pos_ = 0;
};

class Utf8Decoder final : public ByteSource {
 public:
  Utf8Decoder(std::unique_ptr<ByteSource> inner, std::string from, std::string head, std::string path)
      : inner_(std::move(inner)), from_(std::move(from)), path_(std::move(path)), unit_(code_unit_of(from_)) {
    cd_ = ::iconv_open("UTF-8", from_.c_str());
    if (cd_ == iconv_t(-1)) check_encoding_name(from_, "the encoding of " + path_);  // throws
    in_.assign(head.begin(), head.end());
  }
  ~Utf8Decoder() override { ::iconv_close(cd_); }
  Utf8Decoder(const Utf8Decoder&) = delete;
  Utf8Decoder& operator=(const Utf8Decoder&) = delete;

  size_t read(char* out, size_t cap) override {
    while (out_pos_ == out_.size()) {
      if (!decode_more()) return 0;
    }
    const size_t n = std::min(cap, out_.size() - out_pos_);
    std::memcpy(out, out_.data() + out_pos_, n);
    out_pos_ += n;
    return n;
  }
  uint64_t disk_bytes_read() const override { return inner_->disk_bytes_read(); }
  Compression compression() const override { return inner_->compression(); }
  std::string_view decoded_from() const override { return from_; }
  uint64_t undecodable() const override { return undecodable_.load(std::memory_order_relaxed); }

 private:
  size_t pending() const { return in_.size() - in_begin_; }

  // Moves the unread input to the front and appends the next bytes of `inner_`; sets eof_ at its end.
  void fill_input() {
    in_.erase(in_.begin(), in_.begin() + std::ptrdiff_t(in_begin_));
    in_begin_ = 0;
    const size_t have = in_.size();
    in_.resize(have + kInChunk);
    const size_t got = inner_->read(in_.data() + have, kInChunk);
    in_.resize(have + got);
    eof_ = got == 0;
  }

  void replace(char*& out, size_t& left, size_t skip) {
    std::memcpy(out, kReplacement.data(), kReplacement.size());
    out += kReplacement.size();
    left -= kReplacement.size();
    in_begin_ += std::min(skip, pending());
    undecodable_.fetch_add(1, std::memory_order_relaxed);
  }

  // Decodes the next stretch of input into out_; false at the end of the input.
  bool decode_more() {
    out_.resize(kOutChunk);
    out_pos_ = 0;
    char* op = out_.data();
    size_t left = out_.size();
    while (left > kOutChunk / 2 && !(eof_ && pending() == 0 && flushed_)) {
      if (pending() == 0 || starved_) {
        if (!eof_) {
          fill_input();
          starved_ = false;
          continue;
        }
        if (pending() > 0) replace(op, left, pending());  // a character cut by the end of the file
        ::iconv(cd_, nullptr, nullptr, &op, &left);       // a stateful encoding's closing sequence
        flushed_ = true;
        continue;
      }
      char* ip = in_.data() + in_begin_;
      size_t in_left = pending();
      const size_t rc = ::iconv(cd_, &ip, &in_left, &op, &left);
      in_begin_ = size_t(ip - in_.data());
      if (rc != size_t(-1) || errno == E2BIG) continue;
      if (errno == EINVAL) {
        starved_ = true;  // the buffer ends inside a character: read on
      } else if (errno == EILSEQ) {
        replace(op, left, unit_);
      } else {
        throw BadInput(path_ + ": cannot decode " + from_ + ": " + std::strerror(errno));
      }
    }
    out_.resize(out_.size() - left);
    return !out_.empty();
  }

  std::unique_ptr<ByteSource> inner_;
  std::string from_, path_;
  size_t unit_;
  iconv_t cd_;
  std::vector<char> in_;
  size_t in_begin_ = 0;
  std::vector<char> out_;
  size_t out_pos_ = 0;
  bool eof_ = false, starved_ = false, flushed_ = false;
  std::atomic<uint64_t> undecodable_{0};
};

std::string read_head(ByteSource& source, size_t want) {
  std::string head(want, '\0');
  size_t got = 0;
  while (got < want) {
    const size_t n = source.read(head.data() + got, want - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  return head;
}

}  // namespace

SniffedEncoding sniff_encoding(std::string_view h) {
  auto starts = [&](std::string_view mark) { return h.substr(0, mark.size()) == mark; };
  using namespace std::string_view_literals;
  if (starts("\xFF\xFE\0\0"sv)) return {"UTF-32LE", 4};  // before UTF-16LE, whose mark it begins with
  if (starts("\0\0\xFE\xFF"sv)) return {"UTF-32BE", 4};
  if (starts("\xFF\xFE"sv)) return {"UTF-16LE", 2};
  if (starts("\xFE\xFF"sv)) return {"UTF-16BE", 2};
  // No mark: "<?" of an XML declaration in UTF-32 or UTF-16 (XML 1.0, appendix F).
  if (starts("<\0\0\0"sv)) return {"UTF-32LE", 0};
  if (starts("\0\0\0<"sv)) return {"UTF-32BE", 0};
  if (starts("<\0?\0"sv)) return {"UTF-16LE", 0};
  if (starts("\0<\0?"sv)) return {"UTF-16BE", 0};
  return {};
}

bool is_utf8_name(std::string_view name) {
  const std::string u = upper(name);
  return u == "UTF-8" || u == "UTF8";
}

void check_encoding_name(const std::string& name, const std::string& flag) {
  const iconv_t cd = name.empty() ? iconv_t(-1) : ::iconv_open("UTF-8", name.c_str());
  if (cd != iconv_t(-1)) {
    ::iconv_close(cd);
    return;
  }
  throw BadInput(flag + " '" + name + "': no such encoding",
                 "name one iconv knows: latin1, cp1252, gb18030, shift_jis, utf-16 … (`iconv -l` lists them)");
}

std::unique_ptr<ByteSource> decode_to_utf8(std::unique_ptr<ByteSource> inner, const std::string& encoding,
                                           const std::string& path) {
  std::string head = read_head(*inner, 4);
  std::string from = encoding;
  if (is_utf8_name(from)) return std::make_unique<ReplaySource>(std::move(inner), std::move(head));
  if (from.empty()) {
    const SniffedEncoding sniffed = sniff_encoding(head);
    if (sniffed.name.empty()) return std::make_unique<ReplaySource>(std::move(inner), std::move(head));
    head.erase(0, sniffed.mark_bytes);
    from = sniffed.name;
  }
  return std::make_unique<Utf8Decoder>(std::move(inner), std::move(from), std::move(head), path);
}

}  // namespace bertpt::text
