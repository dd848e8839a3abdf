#include "text/multistream_bzip2.h"

#include <bzlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/ordered_loader.h"

namespace bertpt::text {

namespace {

constexpr uint64_t kBlockMagic = 0x314159265359;  // starts every block
constexpr uint64_t kEndMagic = 0x177245385090;    // ends a stream, then its 32-bit combined CRC
constexpr uint64_t kMagicMask = (uint64_t{1} << 48) - 1;
// A block's compressed bits at most: 900 000 symbols of at most 20 bits, and its tables, fit in 3 MiB.
constexpr uint64_t kMaxBlockBits = uint64_t{3} << 23;
constexpr size_t kMaxScanBytes = 16 << 20;  // a unit that finds no block magic this far is cut anyway
constexpr size_t kReadChunk = 1 << 20;
constexpr uint64_t kNone = ~uint64_t{0};

// The first stream start at or after byte `from` of `buf`: "BZh" and a level digit, then the first
// block's magic ("1AY&SY"), byte-aligned. Used only to learn the level of the stream a unit starts in.
size_t find_stream_start(const std::string& buf, size_t from) {
  for (size_t p = buf.find("BZh", from); p != std::string::npos; p = buf.find("BZh", p + 1)) {
    if (p + 10 > buf.size()) return std::string::npos;
    if (buf[p + 3] >= '1' && buf[p + 3] <= '9' && buf.compare(p + 4, 6, "1AY&SY") == 0) return p;
  }
  return std::string::npos;
}

// Bits [bit, bit + n) of `b`, the most significant first (n <= 64).
uint64_t get_bits(const std::string& b, uint64_t bit, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i, ++bit) v = v << 1 | ((uint8_t(b[bit / 8]) >> (7 - bit % 8)) & 1);
  return v;
}

// Sets bits [bit, bit + n) of `b`, zero before, to the low n bits of `v`.
void put_bits(std::string& b, uint64_t bit, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, ++bit) b[bit / 8] = char(b[bit / 8] | ((v >> i) & 1) << (7 - bit % 8));
}

// The values that bits [16, 24) of a 64-bit window take when a magic lies at its bits [s, s + 48),
// s < 8: a quick test that skips the 8 shifts at most bytes.
struct MagicBytes {
  bool maybe[256] = {};
  MagicBytes() {
    for (int s = 0; s < 8; ++s) maybe[(kBlockMagic << s >> 16) & 0xff] = maybe[(kEndMagic << s >> 16) & 0xff] = true;
  }
};
const MagicBytes kMagicBytes;

// Calls found(bit, is_end) for each block magic (is_end false) and end-of-stream magic (true) lying
// within bits [from, to) of `b`, in order, until it returns true.
template <typename F>
void scan_magics(const std::string& b, uint64_t from, uint64_t to, F found) {
  uint64_t w = 0;
  for (uint64_t k = from / 8; k < (to + 7) / 8; ++k) {
    w = w << 8 | uint8_t(b[k]);
    if (!kMagicBytes.maybe[(w >> 16) & 0xff]) continue;
    for (int s = 7; s >= 0; --s) {  // the 48 bits that end `s` bits before the end of byte k
      const uint64_t v = (w >> s) & kMagicMask;
      if (v != kBlockMagic && v != kEndMagic) continue;
      const uint64_t end = 8 * k + 8 - s;
      if (end >= from + 48 && end <= to && found(end - 48, v == kEndMagic)) return;
    }
  }
}

// The block at bits [from, to) of `b` as a standalone stream: "BZh" and the level digit, the block,
// the end-of-stream magic and a combined CRC equal to the block's CRC (the 32 bits after its magic),
// padded to a byte.
std::string standalone_stream(const std::string& b, uint64_t from, uint64_t to, int level) {
  const uint64_t bits = to - from, whole = bits / 8;
  std::string s(4 + (bits + 80 + 7) / 8, '\0');
  s[0] = 'B', s[1] = 'Z', s[2] = 'h', s[3] = char('0' + level);
  const uint8_t* in = reinterpret_cast<const uint8_t*>(b.data()) + from / 8;
  const int r = from % 8;
  if (r == 0) {
    std::memcpy(s.data() + 4, in, whole);
  } else {
    for (uint64_t i = 0; i < whole; ++i) s[4 + i] = char(in[i] << r | in[i + 1] >> (8 - r));
  }
  put_bits(s, 32 + 8 * whole, get_bits(b, from + 8 * whole, bits % 8), bits % 8);
  put_bits(s, 32 + bits, kEndMagic, 48);
  put_bits(s, 32 + bits + 48, get_bits(b, from + 48, 32), 32);
  return s;
}

// Appends to `out` the bytes of the block at bits [from, to) of `b`; false, `out` unchanged, when those
// bits are not exactly one intact block (libbz2 checks the block's CRC).
bool decode_block(const std::string& b, uint64_t from, uint64_t to, int level, std::string& out) {
  if (to - from < 48 + 32 + 1 + 24) return false;  // magic, CRC, randomised bit, origPtr
  std::string in = standalone_stream(b, from, to, level);
  bz_stream bz;
  std::memset(&bz, 0, sizeof bz);
  if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK) throw std::bad_alloc();
  bz.next_in = in.data();
  bz.avail_in = unsigned(in.size());
  const size_t start = out.size();
  size_t pos = start;
  int rc = BZ_OK;
  while (rc == BZ_OK) {
    if (out.size() - pos < (1 << 16)) out.resize(pos + std::max<size_t>(pos / 2, 1 << 20));
    bz.next_out = out.data() + pos;
    bz.avail_out = unsigned(std::min<size_t>(out.size() - pos, 1u << 30));
    const unsigned room = bz.avail_out;
    rc = BZ2_bzDecompress(&bz);
    pos += room - bz.avail_out;
    if (rc == BZ_OK && bz.avail_in == 0 && bz.avail_out > 0) rc = BZ_UNEXPECTED_EOF;
  }
  BZ2_bzDecompressEnd(&bz);
  out.resize(rc == BZ_STREAM_END ? pos : start);
  return rc == BZ_STREAM_END;
}

// The decoder's position in the file's structure.
struct State {
  int level = 9;       // of the current stream
  bool header = true;  // a stream header ("BZh" and the level digit) or the end of the file is due
  bool operator==(const State& o) const { return header == o.header && (header || level == o.level); }
};

// A unit's compressed bits: [begin, end) of `bytes`, whose first byte is byte `offset` of the file.
struct Chunk {
  std::string bytes;
  uint64_t offset = 0, begin = 0, end = 0;
  State state;        // at `begin`
  bool last = false;  // `end` is the end of the file, else a block magic (or, rarely, any bit)
};

// A block (its CRC) or a stream's end (its stored combined CRC), in file order.
struct Event {
  bool stream_end;
  uint32_t crc;
  uint64_t offset;  // compressed byte of the magic
  size_t out;       // decompressed bytes of the unit up to here
};

// Where a unit's decoding stopped before its end: nothing from bit `at` of its chunk decoded on its own
// (a block that runs on into the next unit, or damage).
struct Stop {
  uint64_t at;
  State state;
  bool truncated;  // the file ends before the structure there does
};

struct Unit {
  Chunk chunk;
  std::string bytes;  // decompressed
  std::vector<Event> events;
  State end;                 // at the chunk's end, when not stopped
  std::optional<Stop> stop;  // after `bytes`
  std::exception_ptr error;  // after `bytes`
};

struct Mark {
  uint64_t bit;
  bool is_end;  // end-of-stream magic, else block magic
};

// Decodes one chunk in order, as far as it goes.
class ChunkDecoder {
 public:
  explicit ChunkDecoder(Chunk c) : pos_(c.begin), state_(c.state) {
    scan_magics(c.bytes, c.begin, c.end, [&](uint64_t bit, bool is_end) {
      marks_.push_back({bit, is_end});
      return false;
    });
    if (!c.last) marks_.push_back({c.end, false});  // the next unit starts at a block magic
    u_.chunk = std::move(c);
  }

  Unit run() && {
    const Chunk& c = u_.chunk;
    while (pos_ < c.end && !u_.stop) {
      while (k_ < marks_.size() && marks_[k_].bit < pos_) ++k_;
      if (state_.header) {
        header();
      } else if (k_ == marks_.size() || marks_[k_].bit != pos_) {
        stop(pos_ + 48 > c.end);  // neither a block nor a stream's end
      } else if (marks_[k_].is_end) {
        stream_end();
      } else {
        block();
      }
    }
    if (!u_.stop && c.last && !state_.header) stop(true);
    u_.end = state_;
    return std::move(u_);
  }

 private:
  void header() {
    const Chunk& c = u_.chunk;
    if (pos_ % 8 != 0) return stop(false);
    if (pos_ + 32 > c.end) return stop(true);
    const char* h = c.bytes.data() + pos_ / 8;
    if (h[0] != 'B' || h[1] != 'Z' || h[2] != 'h' || h[3] < '1' || h[3] > '9') return stop(false);
    state_ = State{h[3] - '0', false};
    pos_ += 32;
  }

  void stream_end() {
    const Chunk& c = u_.chunk;
    if (pos_ + 80 > c.end) return stop(true);
    event(true, get_bits(c.bytes, pos_ + 48, 32));
    pos_ = (pos_ + 80 + 7) / 8 * 8;
    state_.header = true;
  }

  // The block at pos_ ends at the first magic after it where it decodes: a magic inside compressed
  // data makes a candidate block that fails, merged with the next one.
  void block() {
    const Chunk& c = u_.chunk;
    for (size_t j = k_ + 1; j < marks_.size() && marks_[j].bit - pos_ <= kMaxBlockBits; ++j) {
      if (decode_block(c.bytes, pos_, marks_[j].bit, state_.level, u_.bytes)) {
        event(false, get_bits(c.bytes, pos_ + 48, 32));
        pos_ = marks_[j].bit;
        return;
      }
    }
    stop(k_ + 1 == marks_.size());  // no magic after it: the file ends inside it
  }

  void event(bool stream_end, uint64_t crc) {
    u_.events.push_back({stream_end, uint32_t(crc), u_.chunk.offset + pos_ / 8, u_.bytes.size()});
  }
  void stop(bool truncated) { u_.stop = Stop{pos_, state_, truncated}; }

  Unit u_;
  std::vector<Mark> marks_;
  size_t k_ = 0;  // the first mark at or after pos_
  uint64_t pos_;
  State state_;
};

Unit decode_chunk(Chunk c) { return ChunkDecoder(std::move(c)).run(); }

class ParallelBzip2Source final : public ByteSource {
 public:
  ParallelBzip2Source(std::string path, std::FILE* file, size_t threads, size_t unit_bytes)
      : path_(std::move(path)), file_(file), unit_bytes_(unit_bytes) {
    loader_.emplace([this](size_t index, size_t) { return load(index); }, threads, 2 * threads);
  }
  ~ParallelBzip2Source() override {
    loader_.reset();  // its workers read file_
    std::fclose(file_);
  }

  size_t read(char* out, size_t cap) override {
    while (unit_pos_ == unit_.bytes.size()) {
      if (unit_.error) std::rethrow_exception(unit_.error);
      if (!advance()) return 0;
    }
    const size_t n = std::min(cap, unit_.bytes.size() - unit_pos_);
    std::memcpy(out, unit_.bytes.data() + unit_pos_, n);
    unit_pos_ += n;
    return n;
  }
  uint64_t disk_bytes_read() const override { return disk_bytes_.load(); }
  Compression compression() const override { return Compression::Bzip2; }

 private:
  // Unit `index`: cut from the file in its turn (units are read in index order), then decoded.
  std::optional<Unit> load(size_t index) {
    std::optional<Chunk> chunk;
    turns_.take(index, [&] {
      if (failed_) return;
      try {
        chunk = cut_next();
      } catch (...) {
        failed_ = true;
        throw;
      }
    });
    if (!chunk) return std::nullopt;
    return decode_chunk(std::move(*chunk));
  }

  // The next unit's bits: from where the last one ended to the first block magic unit_bytes_ later, or
  // to the end of the file (the turn is held). Null after the end.
  std::optional<Chunk> cut_next() {
    while (!eof_ && pending_.size() < unit_bytes_ + 8) read_more();
    if (pending_.empty()) return std::nullopt;
    uint64_t from = begin_ + 8 * unit_bytes_, cut = kNone;
    for (;;) {
      const uint64_t have = 8 * pending_.size();
      if (from < have)
        scan_magics(pending_, from, have, [&](uint64_t bit, bool is_end) {
          if (!is_end) cut = bit;
          return !is_end;
        });
      if (cut != kNone || eof_ || pending_.size() >= unit_bytes_ + kMaxScanBytes) break;
      if (have >= from + 47) from = have - 47;  // a magic may straddle the bytes read next
      read_more();
    }
    if (cut == kNone) cut = 8 * pending_.size();
    Chunk c{pending_.substr(0, (cut + 7) / 8), offset_, begin_, cut, State{level_, offset_ == 0 && begin_ == 0},
            eof_ && cut == 8 * pending_.size()};
    for (size_t h = find_stream_start(pending_, 0); h != std::string::npos && 8 * h < cut;
         h = find_stream_start(pending_, h + 1)) {
      level_ = pending_[h + 3] - '0';  // a guess for the next unit, checked by advance()
    }
    pending_.erase(0, cut / 8);
    offset_ += cut / 8;
    begin_ = cut % 8;
    return c;
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

  // Makes the next unit current; false at the end. A unit decoded from a state other than the one the
  // unit before ended in, or after a unit that stopped early, is decoded again here, in order.
  bool advance() {
    std::optional<Unit> next = loader_->next();
    if (unit_.stop) {
      next = resume(unit_, std::move(next));
    } else if (!next) {
      return false;
    } else if (!(next->chunk.state == unit_.end)) {
      Chunk c = std::move(next->chunk);
      c.state = unit_.end;
      next = decode_chunk(std::move(c));
    }
    unit_ = std::move(*next);
    unit_pos_ = 0;
    check_streams(unit_);
    return true;
  }

  // `done`'s undecoded rest joined with the unit after it, decoded; throws when there is none or when
  // the rest is longer than any block.
  Unit resume(const Unit& done, std::optional<Unit> next) const {
    const Stop& s = *done.stop;
    const Chunk& d = done.chunk;
    const uint64_t at = d.offset + s.at / 8;
    if (!next) throw damaged(s.truncated ? "truncated" : "corrupt", at);
    if (d.end - s.at > kMaxBlockBits) throw damaged("corrupt", at);
    const size_t first = s.at / 8, seam = d.end / 8;  // byte `seam` of d is byte 0 of the next chunk
    Chunk c{d.bytes.substr(first, seam - first) + next->chunk.bytes,
            d.offset + first,
            s.at % 8,
            8 * (seam - first) + next->chunk.end,
            s.state,
            next->chunk.last};
    return decode_chunk(std::move(c));
  }

  // Each stream's stored combined CRC against its blocks' CRCs; on a mismatch `u` ends there.
  void check_streams(Unit& u) {
    for (const Event& e : u.events) {
      if (!e.stream_end) {
        combined_ = (combined_ << 1 | combined_ >> 31) ^ e.crc;
      } else if (e.crc != combined_) {
        u.bytes.resize(e.out);
        u.stop.reset();
        u.error = std::make_exception_ptr(damaged("corrupt (its combined CRC does not match)", e.offset));
        return;
      } else {
        combined_ = 0;
      }
    }
  }

  BadInput damaged(const std::string& what, uint64_t offset) const {
    return BadInput(path_ + ": bzip2 data is " + what + " at compressed byte " + std::to_string(offset),
                    "the file is damaged: download it again");
  }

  const std::string path_;
  std::FILE* const file_;
  const size_t unit_bytes_;
  InOrderTurns turns_;   // units are cut from the file in index order
  uint64_t offset_ = 0;  // compressed offset of pending_[0]
  std::string pending_;  // compressed bytes read but not yet cut
  uint64_t begin_ = 0;   // the next unit's first bit in pending_[0]
  int level_ = 9;        // of the last stream header cut
  bool eof_ = false;
  bool failed_ = false;  // reading the file failed: no units after that one
  std::atomic<uint64_t> disk_bytes_{0};
  Unit unit_;  // the consumer's current unit
  size_t unit_pos_ = 0;
  uint32_t combined_ = 0;                      // CRC of the current stream's blocks so far
  std::optional<OrderedLoader<Unit>> loader_;  // last: its workers use the members above
};

}  // namespace

std::unique_ptr<ByteSource> open_multistream_bzip2(const std::string& path, size_t threads, size_t unit_bytes) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the path and its permissions");
  if (threads < 2) {
    std::fclose(file);
    return nullptr;
  }
  return std::make_unique<ParallelBzip2Source>(path, file, threads, std::max<size_t>(unit_bytes, 1));
}

}  // namespace bertpt::text
