#include "data/dataset.h"

#include <algorithm>

#include <filesystem>

#include "common/error.h"
#include "data/phase_schedule.h"

namespace bertpt::data {

io::Manifest read_dataset_manifest(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(io::manifest_path(dir), ec)) {
    const std::vector<uint32_t> lengths = lengths_in(dir);
    if (!lengths.empty()) {
      throw BadInput(dir + " holds datasets of several lengths (" + length_dir_names(lengths) +
                         "), each with its own manifest",
                     "pass one of them, e.g. " + length_dir(dir, lengths.back()));
    }
  }
  return io::read_manifest(dir);
}

Dataset::Dataset(const std::string& dir, const std::string& split) : dir_(dir), manifest_(read_dataset_manifest(dir)) {
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

// A damaged shard may hold ids past the vocabulary; the model's embedding lookup must never see one
// (LibTorch would fail with an index error naming nothing). One pass over the row: cheap next to a step.
template <typename Id>
void Dataset::check_ids(size_t shard, uint64_t row, const Id* ids) const {
  const uint64_t vocab = manifest_.vocab_size;
  for (uint32_t i = 0; i < seq_len(); ++i) {
    if (uint64_t(ids[i]) >= vocab) {
      throw BadInput("shard " + shards_[shard]->path() + " row " + std::to_string(row) + " position " +
                         std::to_string(i) + " holds token id " + std::to_string(uint64_t(ids[i])) +
                         " but the vocabulary has " + std::to_string(vocab) + " tokens",
                     "the shard is damaged: check it with 'bertpt data verify " + dir_ + "' and re-run bertpt prepare");
    }
  }
}

void Dataset::get(uint64_t index, int64_t* out) const {
  uint64_t row;
  size_t s = shard_of(index, row);
  shards_[s]->read_row(row, out);
  check_ids(s, row, out);
}

void Dataset::get(uint64_t index, uint32_t* out) const {
  uint64_t row;
  size_t s = shard_of(index, row);
  shards_[s]->read_row(row, out);
  check_ids(s, row, out);
}

}  // namespace bertpt::data
