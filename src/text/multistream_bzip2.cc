#include "text/multistream_bzip2.h"

#include <bzlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/ordered_loader.h"

namespace bertpt::text {

namespace {

constexpr size_t kProbeBytes = 4 << 20;     // a second stream must start within this to go parallel
constexpr size_t kUnitBytes = 1 << 20;      // compressed bytes per unit: cut at the first stream start after
constexpr size_t kMaxUnitBytes = 64 << 20;  // a unit that finds no stream start by then is an error
constexpr size_t kReadChunk = 1 << 20;

// The first stream start at or after `from` in `buf`: "BZh" and a level digit, then the first block's
// magic 0x314159265359 ("1AY&SY"), byte-aligned as every stream after the first one is. Ten given bytes
// can also occur inside compressed data (about once in 2^77 positions); such a false cut would make
// the two units around it fail to decode, reported as corrupt.
size_t find_stream_start(const std::string& buf, size_t from) {
  for (size_t p = buf.find("BZh", from); p != std::string::npos; p = buf.find("BZh", p + 1)) {
    if (p + 10 > buf.size()) return std::string::npos;
    if (buf[p + 3] >= '1' && buf[p + 3] <= '9' && buf.compare(p + 4, 6, "1AY&SY") == 0) return p;
  }
  return std::string::npos;
}

struct Unit {
  std::string bytes;         // decompressed
  std::exception_ptr error;  // a stream of the unit failed after `bytes`
};

class MultistreamBzip2Source final : public ByteSource {
 public:
  // `head`: the first bytes of `file`, already read; `eof`: they are the whole file.
  MultistreamBzip2Source(std::string path, std::FILE* file, std::string head, bool eof, size_t threads)
      : path_(std::move(path)), file_(file), pending_(std::move(head)), eof_(eof), disk_bytes_(pending_.size()) {
    loader_.emplace([this](size_t index, size_t) { return load(index); }, threads, 2 * threads);
  }
  ~MultistreamBzip2Source() override {
    loader_.reset();  // its workers read file_
    std::fclose(file_);
  }

  size_t read(char* out, size_t cap) override {
    while (unit_pos_ == unit_.bytes.size()) {
      if (unit_.error) std::rethrow_exception(std::exchange(unit_.error, nullptr));
      std::optional<Unit> u = loader_->next();
      if (!u) return 0;
      unit_ = std::move(*u);
      unit_pos_ = 0;
    }
    const size_t n = std::min(cap, unit_.bytes.size() - unit_pos_);
    std::memcpy(out, unit_.bytes.data() + unit_pos_, n);
    unit_pos_ += n;
    return n;
  }
  uint64_t disk_bytes_read() const override { return disk_bytes_.load(); }
  Compression compression() const override { return Compression::Bzip2; }

 private:
  // Unit `index`: cut from the file in its turn (units are read in index order), then decompressed.
  std::optional<Unit> load(size_t index) {
    std::string compressed;
    uint64_t offset = 0;
    turns_.take(index, [&] {
      if (failed_) return;
      offset = offset_;
      try {
        compressed = cut_next();
      } catch (...) {
        failed_ = true;
        throw;
      }
      offset_ += compressed.size();
    });
    if (compressed.empty()) return std::nullopt;
    Unit unit;
    try {
      decompress(compressed, offset, unit.bytes);
    } catch (...) {
      unit.error = std::current_exception();  // after the bytes decoded before the damage
    }
    return unit;
  }

  // The next unit's compressed bytes: whole streams, about kUnitBytes (the turn is held).
  std::string cut_next() {
    size_t cut = find_stream_start(pending_, std::min(pending_.size(), kUnitBytes));
    while (cut == std::string::npos && !eof_) {
      const size_t searched = pending_.size() > 9 ? pending_.size() - 9 : 0;
      if (pending_.size() >= kMaxUnitBytes) {
        throw BadInput(path_ + ": a bzip2 stream of over 64 MiB in a multistream file at compressed byte " +
                           std::to_string(offset_),
                       "pass --read-threads 1 to decompress it on one thread");
      }
      read_more();
      cut = find_stream_start(pending_, std::max(searched, std::min(pending_.size(), kUnitBytes)));
    }
    if (cut == std::string::npos) cut = pending_.size();
    std::string unit = pending_.substr(0, cut);
    pending_.erase(0, cut);
    return unit;
  }

  void read_more() {
    const size_t old = pending_.size();
    pending_.resize(old + kReadChunk);
    const size_t got = std::fread(pending_.data() + old, 1, kReadChunk, file_);
    pending_.resize(old + got);
    if (got < kReadChunk) {
      if (std::ferror(file_)) throw BadInput("cannot read " + path_ + ": " + std::strerror(errno));
      eof_ = true;
    }
    disk_bytes_ += got;
  }

  // The concatenated streams of `in` (starting at compressed byte `offset` of the file), decompressed into
  // `out`; on a damaged stream `out` holds what was decoded before the damage.
  void decompress(const std::string& in, uint64_t offset, std::string& out) const {
    out.resize(std::max<size_t>(in.size() * 4, 1 << 16));
    size_t in_pos = 0, out_pos = 0;
    while (in_pos < in.size()) {
      bz_stream bz;
      std::memset(&bz, 0, sizeof bz);
      if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK) fail("unreadable (bzip2 init failed)", offset + in_pos);
      int rc = BZ_OK;
      bz.next_in = const_cast<char*>(in.data() + in_pos);
      bz.avail_in = unsigned(in.size() - in_pos);
      while (rc == BZ_OK) {
        if (out_pos == out.size()) out.resize(out.size() * 2);
        bz.next_out = out.data() + out_pos;
        bz.avail_out = unsigned(std::min<size_t>(out.size() - out_pos, 1u << 30));
        const unsigned before = bz.avail_out;
        rc = BZ2_bzDecompress(&bz);
        out_pos += before - bz.avail_out;
        if (rc == BZ_OK && bz.avail_in == 0 && bz.avail_out > 0) rc = BZ_UNEXPECTED_EOF;
      }
      const size_t stream_start = in_pos;
      in_pos = in.size() - bz.avail_in;
      BZ2_bzDecompressEnd(&bz);
      if (rc != BZ_STREAM_END) out.resize(out_pos);
      if (rc == BZ_UNEXPECTED_EOF) fail("truncated", offset + stream_start);
      if (rc != BZ_STREAM_END) fail("corrupt (bzip2 error " + std::to_string(rc) + ")", offset + stream_start);
    }
    out.resize(out_pos);
  }

  [[noreturn]] void fail(const std::string& what, uint64_t offset) const {
    throw BadInput(path_ + ": bzip2 data is " + what + " in the stream at compressed byte " + std::to_string(offset),
                   "the file is damaged: download it again");
  }

  const std::string path_;
  std::FILE* const file_;
  InOrderTurns turns_;   // units are cut from the file in index order
  uint64_t offset_ = 0;  // compressed offset of pending_[0]
  std::string pending_;  // compressed bytes read but not yet cut
  bool eof_ = false;
  bool failed_ = false;  // reading the file failed: no units after that one
  std::atomic<uint64_t> disk_bytes_{0};
  Unit unit_;  // the consumer's current unit
  size_t unit_pos_ = 0;
  std::optional<OrderedLoader<Unit>> loader_;  // last: its workers use the members above
};

}  // namespace

std::unique_ptr<ByteSource> open_multistream_bzip2(const std::string& path, size_t threads) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the path and its permissions");
  std::string head(kProbeBytes, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), file));
  const bool eof = head.size() < kProbeBytes;
  if (std::ferror(file) || threads < 2 || find_stream_start(head, 1) == std::string::npos) {
    std::fclose(file);
    return nullptr;
  }
  return std::make_unique<MultistreamBzip2Source>(path, file, std::move(head), eof, threads);
}

}  // namespace bertpt::text
