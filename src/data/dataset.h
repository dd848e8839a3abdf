// A prepared dataset (DATA/manifest.json + shards), opened for training or inspection: samples are
// addressed by a global index over the shards of one split and read from memory maps.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/shard.h"

namespace bertpt::data {

constexpr const char* kManifestName = "manifest.json";
constexpr int kDatasetFormatVersion = 1;

class Dataset {
 public:
  // Opens split `split` ("train" or "valid") of the dataset in `dir`. Throws BadInput when the
  // manifest is missing (the dataset is incomplete), malformed, or a shard does not match it.
  Dataset(const std::string& dir, const std::string& split);

  uint64_t size() const { return total_rows_; }
  uint32_t seq_len() const { return seq_len_; }
  uint64_t vocab_size() const { return vocab_size_; }
  // Copies sample `index` (< size()) into `out` (seq_len ids).
  void get(uint64_t index, int64_t* out) const;
  void get(uint64_t index, uint32_t* out) const;

  const nlohmann::json& manifest() const { return manifest_; }
  const std::string& dir() const { return dir_; }
  // DATA/tokenizer: the tokenizer files copied in by prepare.
  std::string tokenizer_dir() const { return dir_ + "/tokenizer"; }

 private:
  size_t shard_of(uint64_t index, uint64_t& row) const;
  std::string dir_;
  nlohmann::json manifest_;
  uint32_t seq_len_ = 0;
  uint64_t vocab_size_ = 0;
  std::vector<std::unique_ptr<ShardReader>> shards_;
  std::vector<uint64_t> starts_;  // first global index of each shard
  uint64_t total_rows_ = 0;
};

// Reads and checks DATA/manifest.json.
nlohmann::json read_manifest(const std::string& dir);

}  // namespace bertpt::data
