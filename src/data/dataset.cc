#include "data/dataset.h"

#include <algorithm>

#include "common/error.h"

namespace bertpt::data {

Dataset::Dataset(const std::string& dir, const std::string& split) : dir_(dir), manifest_(io::read_manifest(dir)) {
  const io::ManifestSplit* s = manifest_.find_split(split);
  if (!s) {
    throw BadInput(io::manifest_path(dir) + ": no split \"" + split + "\"", "use --split train or --split valid");
  }
  open_shards(*s);
}

// Maps every shard of `split` and checks it against the manifest.
void Dataset::open_shards(const io::ManifestSplit& split) {
  const uint32_t bytes_per_id = manifest_.dtype == "uint32" ? 4 : 2;
  for (const io::ManifestShard& s : split.shards) {
    const std::string path = dir_ + "/" + s.file;
    auto reader = std::make_unique<ShardReader>(path);
    if (reader->rows() != s.rows || reader->seq_len() != seq_len()) {
      throw BadInput("shard " + path + " holds " + std::to_string(reader->rows()) + " rows of " +
                         std::to_string(reader->seq_len()) + " tokens but the manifest says " + std::to_string(s.rows) +
                         " rows of " + std::to_string(seq_len()),
                     "the dataset was modified; re-run bertpt prepare");
    }
    if (reader->header().bytes_per_id != bytes_per_id) {
      throw BadInput("shard " + path + " holds " + std::to_string(reader->header().bytes_per_id) +
                         "-byte ids but the manifest says " + manifest_.dtype,
                     "the dataset was modified; re-run bertpt prepare");
    }
    starts_.push_back(total_rows_);
    if (__builtin_add_overflow(total_rows_, s.rows, &total_rows_)) {
      throw BadInput(io::manifest_path(dir_) + ": the shards of the split hold more than 2^64 rows",
                     "the dataset was modified; re-run bertpt prepare");
    }
    shards_.push_back(std::move(reader));
  }
}

size_t Dataset::shard_of(uint64_t index, uint64_t& row) const {
  if (index >= total_rows_) {
    throw Error(Error::Kind::Internal,
                "sample " + std::to_string(index) + " out of range " + std::to_string(total_rows_));
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
