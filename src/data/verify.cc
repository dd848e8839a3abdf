#include "data/verify.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "common/error.h"
#include "common/sha256.h"
#include "data/dataset.h"
#include "io/manifest.h"
#include "tokenizer/hf_files.h"

namespace bertpt::data {

namespace {

// Every row of every shard of `split` read through Dataset, which refuses ids past the vocabulary;
// a damaged row is one problem, and the scan goes on with the next shard.
void check_split(const std::string& dir, const io::Manifest& m, const std::string& split, VerifyResult& r) {
  r.shards += m.find_split(split)->shards.size();
  std::unique_ptr<Dataset> ds;
  try {
    ds = std::make_unique<Dataset>(dir, split);
  } catch (const BadInput& e) {
    r.problems.push_back(e.what());  // a header or size that disagrees with the manifest
    return;
  }
  std::vector<uint32_t> row(ds->seq_len());
  uint64_t index = 0;
  for (const io::ManifestShard& shard : ds->manifest().find_split(split)->shards) {
    const uint64_t end = index + shard.rows;
    try {
      for (; index < end; ++index) ds->get(index, row.data());
    } catch (const BadInput& e) {
      r.problems.push_back(e.what());
      index = end;
    }
    r.rows += shard.rows;
  }
}

void check_hashes(const std::string& dir, const io::ManifestSplit& split, VerifyResult& r) {
  for (const io::ManifestShard& shard : split.shards) {
    const std::string path = dir + "/" + shard.file;
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) continue;  // check_split reported the missing file
    r.bytes += size;
    std::string got;
    try {
      got = sha256_file(path);
    } catch (const BadInput& e) {
      r.problems.push_back(e.what());
      continue;
    }
    if (got != shard.sha256) {
      r.problems.push_back("shard " + path + ": SHA-256 " + got + " but the manifest records " + shard.sha256);
    }
  }
}

void check_tokenizer(const std::string& dir, const io::Manifest& m, VerifyResult& r) {
  const std::string tok_dir = dir + "/" + m.tokenizer.copy;
  try {
    const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(tok_dir);
    const std::string got = sha256_hex(tokenizer::vocab_txt(tok));
    if (got != m.tokenizer.vocab_sha256) {
      r.problems.push_back("tokenizer " + tok_dir + ": its vocabulary's SHA-256 is " + got +
                           " but the manifest records " + m.tokenizer.vocab_sha256);
    }
    if (uint64_t(tok.vocab_size()) != m.vocab_size) {
      r.problems.push_back("tokenizer " + tok_dir + " has " + std::to_string(tok.vocab_size()) +
                           " tokens but the manifest says vocab_size " + std::to_string(m.vocab_size));
    }
  } catch (const BadInput& e) {
    r.problems.push_back(e.what());
  }
}

}  // namespace

nlohmann::json VerifyResult::to_json() const {
  return {{"dataset", dataset}, {"ok", ok()},         {"shards", shards},    {"rows", rows},
          {"bytes", bytes},     {"seconds", seconds}, {"problems", problems}};
}

VerifyResult verify_dataset(const std::string& dir, bool hash) {
  const auto t0 = std::chrono::steady_clock::now();
  const io::Manifest m = read_dataset_manifest(dir);
  VerifyResult r;
  r.dataset = dir;
  for (const char* split : {"train", "valid"}) {
    check_split(dir, m, split, r);
    if (hash) check_hashes(dir, *m.find_split(split), r);
  }
  check_tokenizer(dir, m, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace bertpt::data
