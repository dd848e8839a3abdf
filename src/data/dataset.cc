#include "data/dataset.h"

#include <algorithm>
#include <filesystem>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::data {

nlohmann::json read_manifest(const std::string& dir) {
  std::string path = dir + "/" + kManifestName;
  if (!std::filesystem::exists(path)) {
    bool interrupted = std::filesystem::exists(dir + "/progress.json");
    throw BadInput(path + " does not exist: " + (interrupted ? "the dataset is incomplete" : "not a bertpt dataset"),
                   interrupted ? "finish it with bertpt prepare --resume" : "create one with bertpt prepare");
  }
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(path + ": not valid JSON (" + e.what() + ")", "re-run bertpt prepare");
  }
  if (m.value("format", "") != "bertpt-dataset") throw BadInput(path + ": field \"format\" is not \"bertpt-dataset\"");
  int version = m.value("format_version", 0);
  if (version != kDatasetFormatVersion) {
    throw BadInput(path + ": format_version " + std::to_string(version) + ", this bertpt reads version " +
                   std::to_string(kDatasetFormatVersion));
  }
  return m;
}

Dataset::Dataset(const std::string& dir, const std::string& split) : dir_(dir), manifest_(read_manifest(dir)) {
  const std::string mpath = dir + "/" + kManifestName;
  try {
    seq_len_ = manifest_.at("seq_len").get<uint32_t>();
    vocab_size_ = manifest_.at("vocab_size").get<uint64_t>();
    if (!manifest_.at("splits").contains(split)) {
      throw BadInput(mpath + ": no split \"" + split + "\"", "use --split train or --split valid");
    }
    for (const auto& s : manifest_["splits"][split].at("shards")) {
      std::string file = s.at("file").get<std::string>();
      auto reader = std::make_unique<ShardReader>(dir + "/" + file);
      uint64_t rows = s.at("rows").get<uint64_t>();
      if (reader->rows() != rows || reader->seq_len() != seq_len_) {
        throw BadInput("shard " + file + " holds " + std::to_string(reader->rows()) + " rows of " +
                           std::to_string(reader->seq_len()) + " tokens but the manifest says " + std::to_string(rows) +
                           " rows of " + std::to_string(seq_len_),
                       "the dataset was modified; re-run bertpt prepare");
      }
      starts_.push_back(total_rows_);
      total_rows_ += rows;
      shards_.push_back(std::move(reader));
    }
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(mpath + ": missing or malformed field (" + e.what() + ")", "re-run bertpt prepare");
  }
}

size_t Dataset::shard_of(uint64_t index, uint64_t& row) const {
  if (index >= total_rows_) {
    throw Error(Error::Kind::Internal, "sample " + std::to_string(index) + " out of range " + std::to_string(total_rows_));
  }
  size_t s = size_t(std::upper_bound(starts_.begin(), starts_.end(), index) - starts_.begin()) - 1;
  row = index - starts_[s];
  return s;
}

void Dataset::get(uint64_t index, int64_t* out) const {
  uint64_t row;
  size_t s = shard_of(index, row);
  shards_[s]->read_row(row, out);
}

void Dataset::get(uint64_t index, uint32_t* out) const {
  uint64_t row;
  size_t s = shard_of(index, row);
  shards_[s]->read_row(row, out);
}

}  // namespace bertpt::data
