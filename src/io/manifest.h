// DATA/manifest.json of a prepared dataset (data format v1, docs/data-format.md), typed: one reader
// that checks every field and one writer. `bertpt prepare` writes it last, so a dataset directory
// without it is incomplete.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace bertpt::io {

constexpr const char* kManifestName = "manifest.json";
constexpr const char* kDatasetFormat = "bertpt-dataset";
constexpr int kDatasetFormatVersion = 1;

// One shard file of a split: DATA/<file>, `rows` sequences, SHA-256 of the whole file.
struct ManifestShard {
  std::string file;
  uint64_t rows = 0;
  std::string sha256;
};

// A split's packing statistics (data::PackerStats) and its shards in order.
struct ManifestSplit {
  uint64_t documents = 0;
  uint64_t sequences = 0;  // rows over all shards
  uint64_t tokens = 0;
  uint64_t input_tokens = 0;
  uint64_t dropped_tokens = 0;
  uint64_t pad_tokens = 0;
  uint64_t added_special_tokens = 0;
  std::vector<ManifestShard> shards;
};

// What one --input contributed.
struct ManifestSource {
  std::string name;  // the --input string as given
  uint64_t documents = 0;
  uint64_t tokens = 0;
  uint64_t bytes = 0;  // decompressed bytes read
  uint64_t invalid_utf8_repaired = 0;
  uint64_t empty_skipped = 0;
};

struct ManifestTokenizer {
  std::string path;                // as given to --tokenizer
  std::string copy = "tokenizer";  // the copy inside DATA, relative to it
  std::string vocab_sha256;        // SHA-256 of the vocabulary as vocab.txt
};

// -1 where the tokenizer has no token of that role.
struct ManifestSpecialIds {
  int64_t pad = -1, unk = -1, cls = -1, sep = -1, mask = -1;
};

struct Manifest {
  std::string format = kDatasetFormat;
  int format_version = kDatasetFormatVersion;
  std::string bertpt_version;
  ManifestTokenizer tokenizer;
  uint32_t seq_len = 0;
  uint64_t vocab_size = 0;
  std::string dtype;    // of the ids in the shards: "uint16" or "uint32"
  std::string packing;  // "concat", "guide" or "document"
  bool keep_remainder = false;
  double valid_fraction = 0;
  ManifestSpecialIds special_ids;
  ManifestSplit train, valid;
  std::vector<ManifestSource> sources;  // absent from the file when empty
  // Every option that defines the content (data::PrepareOptions::content_config() plus
  // "tokenizer_vocab_sha256"); --resume compares it. Kept as JSON: it is compared, not interpreted.
  nlohmann::json config = nlohmann::json::object();
  // The whole file as read, including keys this struct does not model; null for a manifest built
  // in memory.
  nlohmann::json raw;

  // "train" or "valid"; nullptr for any other name.
  const ManifestSplit* find_split(std::string_view name) const;
  // The JSON the writer writes (keys sorted, as nlohmann::json orders objects).
  nlohmann::json to_json() const;
  // Checks and converts `j`; throws BadInput naming `path` and the field (e.g. "splits.train.shards[0].rows")
  // when a field is missing or has the wrong type, or when the format or its version is not ours.
  static Manifest from_json(const nlohmann::json& j, const std::string& path);
};

// DATA/manifest.json for the dataset directory `dir`.
std::string manifest_path(const std::string& dir);

// Reads and checks DATA/manifest.json. Throws BadInput when it is missing (saying whether the
// dataset is incomplete, i.e. DATA/progress.json exists), is not JSON, or fails from_json.
Manifest read_manifest(const std::string& dir);

// Writes DATA/manifest.json atomically: to_json() indented by 2, with a final newline.
void write_manifest(const std::string& dir, const Manifest& manifest);

// A shard list as JSON (an array of {file, rows, sha256}), as the manifest and prepare's
// checkpoint (DATA/progress.json) record it.
nlohmann::json shards_to_json(const std::vector<ManifestShard>& shards);
// Reads a shard list written by shards_to_json; errors name `path` and `field`.
std::vector<ManifestShard> shards_from_json(const nlohmann::json& j, const std::string& path, const std::string& field);

}  // namespace bertpt::io
