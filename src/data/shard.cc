#include "data/shard.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/sha256.h"

namespace bertpt::data {

namespace {

void put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint32_t get32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

ShardWriter::ShardWriter(uint32_t seq_len, uint32_t bytes_per_id, uint32_t pad_id, uint64_t reserve_rows)
    : seq_len_(seq_len), bytes_per_id_(bytes_per_id), pad_id_(pad_id) {
  // Reserved, not touched: the pages count in memory only once rows are written into them. At most
  // 512 MiB up front: a --shard-rows beyond that grows the buffer as it fills.
  const uint64_t row_bytes = uint64_t(seq_len) * bytes_per_id;
  data_.reserve(kShardHeaderBytes + std::min<uint64_t>(reserve_rows, (uint64_t(512) << 20) / row_bytes) * row_bytes);
  data_.resize(kShardHeaderBytes);
}

void ShardWriter::add_row(const uint32_t* row) {
  size_t at = data_.size();
  data_.resize(at + size_t(seq_len_) * bytes_per_id_);
  unsigned char* p = data_.data() + at;
  for (uint32_t i = 0; i < seq_len_; ++i) {
    uint32_t id = row[i];
    real_tokens_ += id != pad_id_;
    if (bytes_per_id_ == 2) {
      p[2 * i] = static_cast<unsigned char>(id);
      p[2 * i + 1] = static_cast<unsigned char>(id >> 8);
    } else {
      put32(p + 4 * i, id);
    }
  }
  ++rows_;
}

std::string ShardWriter::write(const std::string& path) {
  unsigned char* h = data_.data();
  std::memset(h, 0, kShardHeaderBytes);
  std::memcpy(h, kShardMagic, 8);
  put32(h + 8, kShardVersion);
  put32(h + 12, bytes_per_id_);
  put32(h + 16, seq_len_);
  put64(h + 24, rows_);
  put64(h + 32, real_tokens_);
  AtomicFile f(path);
  f.write(data_.data(), data_.size());
  f.commit();
  std::string digest = sha256_hex(std::string_view(reinterpret_cast<const char*>(data_.data()), data_.size()));
  data_.resize(kShardHeaderBytes);
  rows_ = 0;
  real_tokens_ = 0;
  return digest;
}

ShardReader::ShardReader(const std::string& path) : path_(path) {
  // O_NONBLOCK: a FIFO in the shard's place must not block the open (it is refused below).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw BadInput("cannot open shard " + path + ": " + std::strerror(errno), "is the dataset complete?");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw BadInput("shard " + path + " is not a regular file", "re-run bertpt prepare");
  }
  map_size_ = size_t(st.st_size);
  if (map_size_ < kShardHeaderBytes) {
    ::close(fd);
    throw BadInput("shard " + path + " is truncated (" + std::to_string(map_size_) + " bytes, no header)",
                   "re-run bertpt prepare");
  }
  void* m = ::mmap(nullptr, map_size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) throw BadInput("cannot map shard " + path + ": " + std::strerror(errno));
  map_ = static_cast<const unsigned char*>(m);
  auto fail = [&](const std::string& what) {
    ::munmap(const_cast<unsigned char*>(map_), map_size_);
    map_ = nullptr;
    throw BadInput("shard " + path + ": " + what, "re-run bertpt prepare (or check the dataset's format version)");
  };
  if (std::memcmp(map_, kShardMagic, 8) != 0) fail("not a bertpt shard (bad magic)");
  uint32_t version = get32(map_ + 8);
  if (version != kShardVersion) fail("format version " + std::to_string(version) + ", this bertpt reads version 1");
  header_.bytes_per_id = get32(map_ + 12);
  header_.seq_len = get32(map_ + 16);
  header_.rows = get64(map_ + 24);
  header_.real_tokens = get64(map_ + 32);
  if (header_.bytes_per_id != 2 && header_.bytes_per_id != 4)
    fail("bad id width " + std::to_string(header_.bytes_per_id));
  if (header_.seq_len == 0) fail("seq_len is 0");
  if (header_.seq_len > kMaxShardSeqLen) {
    fail("seq_len " + std::to_string(header_.seq_len) + " exceeds the longest bertpt writes (" +
         std::to_string(kMaxShardSeqLen) + ")");
  }
  // Overflow-checked: a header claiming, say, 2^57 rows must not wrap around to the file's size.
  uint64_t row_bytes = 0, id_bytes = 0, expect = 0;
  if (__builtin_mul_overflow(uint64_t(header_.seq_len), uint64_t(header_.bytes_per_id), &row_bytes) ||
      __builtin_mul_overflow(header_.rows, row_bytes, &id_bytes) ||
      __builtin_add_overflow(id_bytes, uint64_t(kShardHeaderBytes), &expect)) {
    fail("the header claims " + std::to_string(header_.rows) + " rows of " + std::to_string(header_.seq_len) +
         " ids, more bytes than any file holds (" + std::to_string(map_size_) + " bytes here)");
  }
  if (expect != map_size_) {
    fail("size is " + std::to_string(map_size_) + " bytes but the header promises " + std::to_string(expect));
  }
  if (header_.real_tokens > header_.rows * header_.seq_len) {
    fail("the header counts " + std::to_string(header_.real_tokens) + " real tokens in " +
         std::to_string(header_.rows) + " rows of " + std::to_string(header_.seq_len));
  }
  ::madvise(const_cast<unsigned char*>(map_), map_size_, MADV_RANDOM);
}

ShardReader::~ShardReader() {
  if (map_) ::munmap(const_cast<unsigned char*>(map_), map_size_);
}

void ShardReader::read_row(uint64_t index, uint32_t* out) const {
  const unsigned char* p = map_ + kShardHeaderBytes + index * header_.seq_len * header_.bytes_per_id;
  if (header_.bytes_per_id == 2) {
    for (uint32_t i = 0; i < header_.seq_len; ++i) out[i] = uint32_t(p[2 * i]) | uint32_t(p[2 * i + 1]) << 8;
  } else {
    for (uint32_t i = 0; i < header_.seq_len; ++i) out[i] = get32(p + 4 * i);
  }
}

void ShardReader::read_row(uint64_t index, int64_t* out) const {
  const unsigned char* p = map_ + kShardHeaderBytes + index * header_.seq_len * header_.bytes_per_id;
  if (header_.bytes_per_id == 2) {
    for (uint32_t i = 0; i < header_.seq_len; ++i) out[i] = int64_t(p[2 * i]) | int64_t(p[2 * i + 1]) << 8;
  } else {
    for (uint32_t i = 0; i < header_.seq_len; ++i) out[i] = int64_t(get32(p + 4 * i));
  }
}

}  // namespace bertpt::data
