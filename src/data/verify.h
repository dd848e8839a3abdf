// `bertpt data verify`: checks a prepared dataset against its own manifest — every shard's header,
// size and SHA-256, every token id below the vocabulary, and the tokenizer copy against the
// vocabulary hash prepare recorded — and lists every problem found, not only the first.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bertpt::data {

struct VerifyResult {
  std::string dataset;
  uint64_t shards = 0;  // shard files checked (both splits)
  uint64_t rows = 0;    // sequences whose ids were checked
  uint64_t bytes = 0;   // shard bytes hashed
  double seconds = 0;
  std::vector<std::string> problems;  // one line each, naming the file; empty: the dataset is intact

  bool ok() const { return problems.empty(); }
  nlohmann::json to_json() const;
};

// Throws BadInput only when the manifest itself cannot be read; every other defect is a problem in
// the result. `hash` = false skips the SHA-256 of the shards (headers, sizes and ids are still checked).
VerifyResult verify_dataset(const std::string& dir, bool hash = true);

}  // namespace bertpt::data
