#include "data/inspect.h"

#include <algorithm>

#include "common/error.h"
#include "data/dataset.h"
#include "tokenizer/hf_files.h"

namespace bertpt::data {

namespace {

// Bucket k holds lengths in [2^k, 2^(k+1)); the last bucket also holds everything longer.
constexpr size_t kLengthBuckets = 24;

// Counts over the first `rows` blocks of a split.
struct ScanCounts {
  uint64_t tokens = 0, unk = 0, pad = 0, documents = 0;
  std::vector<uint64_t> histogram = std::vector<uint64_t>(kLengthBuckets, 0);
};

// Document lengths are the distances between consecutive [CLS] tokens in the block stream; [PAD]
// tokens are neither part of a document nor counted as tokens.
ScanCounts scan_blocks(const Dataset& ds, const tokenizer::SpecialIds& sp, uint64_t rows) {
  ScanCounts c;
  uint64_t current = 0;  // tokens of the document being measured
  auto close_document = [&] {
    if (current == 0) return;
    size_t b = 0;
    while ((uint64_t(2) << b) <= current && b < kLengthBuckets - 1) ++b;
    ++c.histogram[b];
    ++c.documents;
    current = 0;
  };
  std::vector<uint32_t> row(ds.seq_len());
  for (uint64_t r = 0; r < rows; ++r) {
    ds.get(r, row.data());
    for (uint32_t id : row) {
      if (int64_t(id) == sp.pad) {
        ++c.pad;
        continue;
      }
      if (int64_t(id) == sp.cls) close_document();
      ++c.tokens;
      ++current;
      c.unk += int64_t(id) == sp.unk;
    }
  }
  close_document();
  return c;
}

std::vector<DecodedBlock> decode_blocks(const Dataset& ds, const tokenizer::Tokenizer& tok,
                                        const InspectOptions& options) {
  std::vector<DecodedBlock> blocks;
  std::vector<uint32_t> row(ds.seq_len());
  for (uint64_t index : options.indices) {
    if (index >= ds.size()) {
      throw BadInput("--index " + std::to_string(index) + " is out of range: the " + options.split + " split has " +
                     std::to_string(ds.size()) + " blocks");
    }
    ds.get(index, row.data());
    blocks.push_back({index, row, tok.decode(row, false)});
  }
  return blocks;
}

}  // namespace

nlohmann::json InspectResult::to_json() const {
  nlohmann::json j = {{"dataset", dataset},
                      {"split", split},
                      {"sequences", sequences},
                      {"scanned_sequences", scanned_sequences},
                      {"seq_len", seq_len},
                      {"tokens", tokens},
                      {"documents_seen", documents_seen},
                      {"unk_rate", unk_rate},
                      {"padding_share", padding_share}};
  nlohmann::json histogram = nlohmann::json::array();
  for (const LengthBucket& b : document_length_histogram) {
    histogram.push_back({{"min_tokens", b.min_tokens}, {"max_tokens", b.max_tokens}, {"documents", b.documents}});
  }
  j["document_length_histogram"] = histogram;
  if (!blocks.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const DecodedBlock& b : blocks) list.push_back({{"index", b.index}, {"ids", b.ids}, {"text", b.text}});
    j["blocks"] = list;
  }
  return j;
}

InspectResult inspect_dataset(const std::string& dir, const InspectOptions& options) {
  Dataset ds(dir, options.split);
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(ds.tokenizer_dir());
  InspectResult r;
  r.dataset = dir;
  r.split = options.split;
  r.sequences = ds.size();
  r.scanned_sequences = options.max_rows ? std::min(options.max_rows, ds.size()) : ds.size();
  r.seq_len = ds.seq_len();

  const ScanCounts c = scan_blocks(ds, tok.special_ids(), r.scanned_sequences);
  r.tokens = c.tokens;
  r.documents_seen = c.documents;
  r.unk_rate = c.tokens ? double(c.unk) / double(c.tokens) : 0.0;
  r.padding_share = r.scanned_sequences ? double(c.pad) / double(r.scanned_sequences * r.seq_len) : 0.0;
  for (size_t b = 0; b < c.histogram.size(); ++b) {
    if (c.histogram[b] == 0) continue;
    r.document_length_histogram.push_back({uint64_t(1) << b, (uint64_t(2) << b) - 1, c.histogram[b]});
  }
  r.blocks = decode_blocks(ds, tok, options);
  return r;
}

}  // namespace bertpt::data
