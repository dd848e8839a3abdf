// A prepared dataset (DATA/manifest.json + shards), opened for training or inspection: samples are
// addressed by a global index over the shards of one split and read from memory maps.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/shard.h"
#include "io/manifest.h"

namespace bertpt::data {

// DIR's manifest (io::read_manifest); a DIR written by `prepare --seq-len 128,512` has none of its
// own but one per DIR/seq-LEN, and the error then names those.
io::Manifest read_dataset_manifest(const std::string& dir);

class Dataset {
 public:
  // Opens split `split` ("train" or "valid") of the dataset in `dir`. Throws BadInput when the
  // manifest is missing (the dataset is incomplete), malformed, or a shard does not match it.
  Dataset(const std::string& dir, const std::string& split);

  uint64_t size() const { return total_rows_; }
  uint32_t seq_len() const { return manifest_.seq_len; }
  uint64_t vocab_size() const { return manifest_.vocab_size; }
  // Copies sample `index` (< size()) into `out` (seq_len ids). Throws BadInput naming the shard and
  // row when an id is not below vocab_size() (a damaged shard).
  void get(uint64_t index, int64_t* out) const;
  void get(uint64_t index, uint32_t* out) const;

  // DATA/manifest.json, typed (manifest().raw: every key as read).
  const io::Manifest& manifest() const { return manifest_; }
  const std::string& dir() const { return dir_; }
  // DATA/tokenizer: the tokenizer files copied in by prepare.
  std::string tokenizer_dir() const { return dir_ + "/tokenizer"; }

 private:
  void open_shards(const io::ManifestSplit& split);
  size_t shard_of(uint64_t index, uint64_t& row) const;
  template <typename Id>
  void check_ids(size_t shard, uint64_t row, const Id* ids) const;
  std::string dir_;
  io::Manifest manifest_;
  std::vector<std::unique_ptr<ShardReader>> shards_;
  std::vector<uint64_t> starts_;  // first global index of each shard
  uint64_t total_rows_ = 0;
};

}  // namespace bertpt::data
