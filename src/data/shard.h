// Training shards: fixed-length rows of token ids, memory-mappable.
//
// File layout (little-endian), format version 1:
//   offset 0   char[8]  magic "BPTSHARD"
//   offset 8   u32      format version (1)
//   offset 12  u32      bytes per token id: 2 (uint16, vocab <= 65536) or 4 (uint32)
//   offset 16  u32      seq_len (tokens per row)
//   offset 20  u32      reserved (0)
//   offset 24  u64      rows
//   offset 32  u64      real (non-[PAD]) tokens in the shard
//   offset 40  u8[24]   reserved (0)
//   offset 64  rows x seq_len token ids, row-major
// The file size must be exactly 64 + rows * seq_len * bytes_per_id.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bertpt::data {

constexpr char kShardMagic[8] = {'B', 'P', 'T', 'S', 'H', 'A', 'R', 'D'};
constexpr uint32_t kShardVersion = 1;
constexpr size_t kShardHeaderBytes = 64;
// The longest sequence a shard holds (prepare refuses longer); a header claiming more is damaged.
constexpr uint32_t kMaxShardSeqLen = 1u << 16;

struct ShardHeader {
  uint32_t bytes_per_id = 2;
  uint32_t seq_len = 0;
  uint64_t rows = 0;
  uint64_t real_tokens = 0;
};

// The id width that fits a vocabulary.
inline uint32_t bytes_per_id_for(size_t vocab_size) { return vocab_size <= 65536 ? 2 : 4; }

// Buffers rows in memory, then writes the whole shard atomically (temporary name, fsync, rename).
class ShardWriter {
 public:
  // `reserve_rows`: rows to reserve memory for at once — a shard's worth, so that the buffer is never
  // copied into a larger one while it fills (a copy would briefly hold the shard twice).
  ShardWriter(uint32_t seq_len, uint32_t bytes_per_id, uint32_t pad_id, uint64_t reserve_rows = 0);
  // `row` has exactly seq_len ids.
  void add_row(const uint32_t* row);
  uint64_t rows() const { return rows_; }
  // Writes to `path`; returns the sha256 of the file. Resets the writer for the next shard.
  std::string write(const std::string& path);

 private:
  uint32_t seq_len_, bytes_per_id_, pad_id_;
  std::vector<unsigned char> data_;
  uint64_t rows_ = 0;
  uint64_t real_tokens_ = 0;
};

// A read-only memory map of one shard, validated on open.
class ShardReader {
 public:
  explicit ShardReader(const std::string& path);
  ~ShardReader();
  ShardReader(const ShardReader&) = delete;
  ShardReader& operator=(const ShardReader&) = delete;

  const ShardHeader& header() const { return header_; }
  uint64_t rows() const { return header_.rows; }
  uint32_t seq_len() const { return header_.seq_len; }
  // Copies row `index` (< rows()) as uint32 ids into `out` (seq_len values).
  void read_row(uint64_t index, uint32_t* out) const;
  // Same, as int64 (what LibTorch's embedding wants).
  void read_row(uint64_t index, int64_t* out) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  ShardHeader header_;
  const unsigned char* map_ = nullptr;
  size_t map_size_ = 0;
};

}  // namespace bertpt::data
