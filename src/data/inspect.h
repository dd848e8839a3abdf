// `bertpt data inspect`: looks inside a prepared dataset — measures document lengths, the [UNK] rate
// and the padding share of one split, and decodes chosen blocks back to text with the dataset's own
// tokenizer (DATA/tokenizer).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bertpt::data {

struct InspectOptions {
  std::string split = "train";
  std::vector<uint64_t> indices;  // blocks to decode
  uint64_t max_rows = 0;          // scan at most this many blocks for the statistics; 0 = all
};

// Documents whose length in tokens lies in [min_tokens, max_tokens] (a power-of-two bucket).
struct LengthBucket {
  uint64_t min_tokens = 0, max_tokens = 0, documents = 0;
};

struct DecodedBlock {
  uint64_t index = 0;
  std::vector<uint32_t> ids;
  std::string text;  // decoded with the special tokens kept
};

struct InspectResult {
  std::string dataset, split;
  uint64_t sequences = 0;          // blocks in the split
  uint64_t scanned_sequences = 0;  // blocks the statistics cover: the first min(sequences, max_rows)
  uint32_t seq_len = 0;
  uint64_t tokens = 0;  // non-[PAD] tokens in the scanned blocks
  // A document starts at each [CLS], so a document cut by the end of the scan counts as one, and in
  // concat mode a document spanning two blocks counts once.
  uint64_t documents_seen = 0;
  double unk_rate = 0;                                  // [UNK] / tokens
  double padding_share = 0;                             // [PAD] / (scanned_sequences * seq_len)
  std::vector<LengthBucket> document_length_histogram;  // buckets holding documents, shortest first
  std::vector<DecodedBlock> blocks;                     // InspectOptions::indices, in that order

  // Keys as printed by `bertpt data inspect --json`; "blocks" only when some were decoded.
  nlohmann::json to_json() const;
};

// Throws BadInput when the dataset cannot be opened, the split does not exist, or an index is out
// of range.
InspectResult inspect_dataset(const std::string& dir, const InspectOptions& options);

}  // namespace bertpt::data
