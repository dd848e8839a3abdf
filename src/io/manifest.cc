#include "io/manifest.h"

#include <cstdint>
#include <filesystem>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"

namespace bertpt::io {

namespace {

constexpr const char* kDamagedHint =
    "the manifest is damaged or was not written by bertpt prepare; re-run bertpt prepare";

// The fields of one object of the manifest; errors name the file and the field by its path from the
// root ("splits.train.shards[0].rows").
using ObjectReader = JsonFields;

JsonFields fields_of(const nlohmann::json& object, const std::string& path, std::string prefix) {
  return JsonFields(object, path, std::move(prefix), kDamagedHint);
}

// The format is checked before any other field, so that a manifest of another format or version
// is reported as such and not as a missing field.
void check_format(const ObjectReader& root, const std::string& path) {
  if (root.str("format") != kDatasetFormat) {
    throw BadInput(path + ": field \"format\" is not \"" + std::string(kDatasetFormat) + "\"",
                   "not a bertpt dataset; create one with bertpt prepare");
  }
  int64_t version = root.i64("format_version");
  if (version != kDatasetFormatVersion) {
    throw BadInput(path + ": format_version " + std::to_string(version) + ", this bertpt reads version " +
                       std::to_string(kDatasetFormatVersion),
                   "prepare the dataset again with this bertpt");
  }
}

ManifestSplit read_split(const ObjectReader& r, const std::string& path) {
  ManifestSplit s;
  s.documents = r.u64("documents");
  s.sequences = r.u64("sequences");
  s.tokens = r.u64("tokens");
  s.input_tokens = r.u64("input_tokens");
  s.dropped_tokens = r.u64("dropped_tokens");
  s.pad_tokens = r.u64("pad_tokens");
  s.added_special_tokens = r.u64("added_special_tokens");
  s.shards = shards_from_json(r.array("shards"), path, r.name("shards"));
  return s;
}

nlohmann::json split_to_json(const ManifestSplit& s) {
  return {{"documents", s.documents},
          {"sequences", s.sequences},
          {"tokens", s.tokens},
          {"input_tokens", s.input_tokens},
          {"dropped_tokens", s.dropped_tokens},
          {"pad_tokens", s.pad_tokens},
          {"added_special_tokens", s.added_special_tokens},
          {"shards", shards_to_json(s.shards)}};
}

std::vector<ManifestSource> read_sources(const ObjectReader& root, const std::string& path) {
  std::vector<ManifestSource> sources;
  if (!root.has("sources")) return sources;
  const nlohmann::json& list = root.array("sources");
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectReader r = fields_of(list[i], path, "sources[" + std::to_string(i) + "]");
    ManifestSource s;
    s.name = r.str("name");
    s.documents = r.u64("documents");
    s.tokens = r.u64("tokens");
    s.bytes = r.u64("bytes");
    s.invalid_utf8_repaired = r.u64("invalid_utf8_repaired");
    s.empty_skipped = r.u64("empty_skipped");
    sources.push_back(std::move(s));
  }
  return sources;
}

nlohmann::json source_to_json(const ManifestSource& s) {
  return {{"name", s.name},
          {"documents", s.documents},
          {"tokens", s.tokens},
          {"bytes", s.bytes},
          {"invalid_utf8_repaired", s.invalid_utf8_repaired},
          {"empty_skipped", s.empty_skipped}};
}

// Each special id is a token of the vocabulary, or -1 (the tokenizer has none): the masking and the
// model index with them, and an id past the vocabulary would reach LibTorch's embedding lookup.
ManifestSpecialIds read_special_ids(const ObjectReader& r, uint64_t vocab_size) {
  ManifestSpecialIds ids;
  const auto id = [&](const char* key) {
    const int64_t v = r.i64(key);
    if (v < -1 || (v >= 0 && uint64_t(v) >= vocab_size)) {
      r.fail(key, "is " + std::to_string(v) + ", not an id of the vocabulary of " + std::to_string(vocab_size) +
                      " tokens (or -1)");
    }
    return v;
  };
  ids.pad = id("pad");
  ids.unk = id("unk");
  ids.cls = id("cls");
  ids.sep = id("sep");
  ids.mask = id("mask");
  return ids;
}

ManifestTokenizer read_tokenizer(const ObjectReader& r) {
  ManifestTokenizer t;
  t.path = r.str("path");
  t.copy = r.str("copy");
  t.vocab_sha256 = r.str("vocab_sha256");
  return t;
}

}  // namespace

const ManifestSplit* Manifest::find_split(std::string_view name) const {
  if (name == "train") return &train;
  if (name == "valid") return &valid;
  return nullptr;
}

nlohmann::json Manifest::to_json() const {
  nlohmann::json m;
  m["format"] = format;
  m["format_version"] = format_version;
  m["bertpt_version"] = bertpt_version;
  m["tokenizer"] = {{"path", tokenizer.path}, {"copy", tokenizer.copy}, {"vocab_sha256", tokenizer.vocab_sha256}};
  m["seq_len"] = seq_len;
  m["vocab_size"] = vocab_size;
  m["dtype"] = dtype;
  m["packing"] = packing;
  m["keep_remainder"] = keep_remainder;
  m["valid_fraction"] = valid_fraction;
  const ManifestSpecialIds& sp = special_ids;
  m["special_ids"] = {{"pad", sp.pad}, {"unk", sp.unk}, {"cls", sp.cls}, {"sep", sp.sep}, {"mask", sp.mask}};
  m["splits"] = {{"train", split_to_json(train)}, {"valid", split_to_json(valid)}};
  for (const ManifestSource& s : sources) m["sources"].push_back(source_to_json(s));
  m["config"] = config;
  return m;
}

Manifest Manifest::from_json(const nlohmann::json& j, const std::string& path) {
  ObjectReader root = fields_of(j, path, "");
  check_format(root, path);
  Manifest m;
  m.format = root.str("format");
  m.format_version = int(root.i64("format_version"));
  m.bertpt_version = root.str("bertpt_version");
  m.tokenizer = read_tokenizer(root.object("tokenizer"));
  m.seq_len = root.u32("seq_len");
  m.vocab_size = root.u64("vocab_size");
  m.dtype = root.str("dtype");
  if (m.dtype != "uint16" && m.dtype != "uint32")
    root.fail("dtype", "is \"" + m.dtype + "\", expected \"uint16\" or \"uint32\"");
  m.packing = root.str("packing");
  m.keep_remainder = root.boolean("keep_remainder");
  m.valid_fraction = root.number("valid_fraction");
  m.special_ids = read_special_ids(root.object("special_ids"), m.vocab_size);
  ObjectReader splits = root.object("splits");
  m.train = read_split(splits.object("train"), path);
  m.valid = read_split(splits.object("valid"), path);
  m.sources = read_sources(root, path);
  m.config = root.any_object("config");
  m.raw = j;
  return m;
}

std::string manifest_path(const std::string& dir) { return dir + "/" + kManifestName; }

Manifest read_manifest(const std::string& dir) {
  const std::string path = manifest_path(dir);
  if (!std::filesystem::exists(path)) {
    bool interrupted = std::filesystem::exists(dir + "/progress.json");
    throw BadInput(path + " does not exist: " + (interrupted ? "the dataset is incomplete" : "not a bertpt dataset"),
                   interrupted ? "finish it with bertpt prepare --resume" : "create one with bertpt prepare");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(path + ": not valid JSON (" + e.what() + ")", "re-run bertpt prepare");
  }
  return Manifest::from_json(j, path);
}

void write_manifest(const std::string& dir, const Manifest& manifest) {
  write_file_atomic(manifest_path(dir), manifest.to_json().dump(2) + "\n");
}

nlohmann::json shards_to_json(const std::vector<ManifestShard>& shards) {
  nlohmann::json list = nlohmann::json::array();
  for (const ManifestShard& s : shards) list.push_back({{"file", s.file}, {"rows", s.rows}, {"sha256", s.sha256}});
  return list;
}

std::vector<ManifestShard> shards_from_json(const nlohmann::json& j, const std::string& path,
                                            const std::string& field) {
  if (!j.is_array()) {
    throw BadInput(path + ": field \"" + field + "\" is " + json_type_in_words(j) + ", expected an array",
                   kDamagedHint);
  }
  std::vector<ManifestShard> shards;
  for (size_t i = 0; i < j.size(); ++i) {
    ObjectReader r = fields_of(j[i], path, field + "[" + std::to_string(i) + "]");
    ManifestShard s{r.str("file"), r.u64("rows"), r.str("sha256")};
    // A shard lies in the dataset directory itself: a path would read (or, resuming, write) elsewhere.
    if (s.file.empty() || s.file == "." || s.file == ".." || s.file.find('/') != std::string::npos) {
      r.fail("file", "is \"" + s.file + "\", expected the name of a file in the dataset directory");
    }
    shards.push_back(std::move(s));
  }
  return shards;
}

}  // namespace bertpt::io
