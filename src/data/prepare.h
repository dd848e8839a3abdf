// `bertpt prepare`: tokenize a corpus and pack it into training shards, streaming, in parallel,
// resumably, with flat memory:
//
//   reader (this thread) -> N encoder threads -> ordered writer thread -> packers -> shards
//
// The writer consumes batches in input order, so the output is byte-identical for every thread
// count. After each completed train shard the state (documents consumed, packer carry-over, shard
// list) is checkpointed to DATA/progress.json; --resume continues from there, redoing at most the
// shard in progress. DATA/manifest.json is written last: a dataset without it is incomplete.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/packer.h"
#include "io/manifest.h"
#include "text/corpus_reader.h"

namespace bertpt::data {

struct PrepareOptions {
  text::CorpusOptions corpus;
  std::string tokenizer;  // directory, tokenizer.json or vocab.txt
  std::string out;        // the dataset directory
  uint32_t seq_len = 512;
  uint32_t max_positions = 512;  // the model's max_position_embeddings: seq_len may not exceed it
  Packing packing = Packing::Concat;
  bool keep_remainder = false;
  double valid_fraction = 0.005;  // share of documents (by content hash) held out for validation
  uint64_t split_seed = 0;
  unsigned threads = 0;     // encoder threads; 0 = all cores
  uint64_t shard_rows = 0;  // rows per train shard; 0 = about 64 MiB per shard
  bool resume = false;
  bool overwrite = false;

  // The options that define the dataset's content (for the manifest and for --resume checks).
  nlohmann::json content_config() const;
};

struct PrepareProgress {
  uint64_t disk_bytes_read = 0, disk_bytes_total = 0;
  uint64_t documents = 0, tokens = 0;
};

struct PrepareResult {
  io::Manifest manifest;                // as written to DATA/manifest.json
  uint64_t resumed_from_documents = 0;  // documents skipped because a checkpoint covered them
  double seconds = 0;
};

PrepareResult prepare_dataset(const PrepareOptions& options,
                              const std::function<void(const PrepareProgress&)>& progress = {});

// The same corpus at several sequence lengths in one pass (one read, one tokenization): the dataset of
// length L goes to OUT/seq-L (data/phase_schedule.h), byte for byte what prepare_dataset with
// --seq-len L --out OUT/seq-L writes; options.seq_len is not used. Each length has its own checkpoint,
// so --resume continues all of them. One result per length, in the order of `lengths`.
std::vector<PrepareResult> prepare_lengths(const PrepareOptions& options, const std::vector<uint32_t>& lengths,
                                           const std::function<void(const PrepareProgress&)>& progress = {});

}  // namespace bertpt::data
