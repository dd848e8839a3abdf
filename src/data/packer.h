// Packing encoded documents into fixed-length rows. Every document arrives as [CLS] … [SEP].
//
//   concat   (default) documents are concatenated and cut into rows of exactly seq_len tokens; a
//            document may span rows, nothing is thrown away except the final partial row (dropped
//            and counted, or padded with keep_remainder).
//   guide    the Hugging Face guide's semantics, for reproduction: each document is truncated to
//            seq_len tokens ([CLS] + first seq_len-2 tokens + [SEP], like truncation=True); documents
//            are grouped by `group_docs` (the map batch of 1,000 rows), each group concatenated and
//            cut into rows, and the group's remainder dropped.
//   document a row never spans two documents: a long document is cut into pieces of seq_len-2
//            tokens, each wrapped in [CLS] … [SEP]; a short tail is padded with [PAD].
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bertpt::data {

enum class Packing { Concat, Guide, Document };
Packing parse_packing(const std::string& name);  // throws BadInput listing the choices
const char* packing_name(Packing p);

struct PackerOptions {
  Packing mode = Packing::Concat;
  uint32_t seq_len = 512;
  uint32_t pad_id = 0, cls_id = 2, sep_id = 3;
  bool keep_remainder = false;  // concat: pad the final partial row instead of dropping it
  uint32_t group_docs = 1000;   // guide: documents per group
};

struct PackerStats {
  uint64_t documents = 0;
  uint64_t input_tokens = 0;  // tokens of the encoded documents given to add()
  uint64_t rows = 0;
  uint64_t tokens = 0;          // real (non-pad) tokens written into rows
  uint64_t dropped_tokens = 0;  // input tokens that did not make it into a row
  uint64_t pad_tokens = 0;
  uint64_t added_special_tokens = 0;  // document mode: [CLS]/[SEP] added around pieces
};

// Receives each finished row (seq_len ids).
using RowSink = std::function<void(const uint32_t* row)>;

class Packer {
 public:
  Packer(PackerOptions options, RowSink sink);
  void add(const uint32_t* ids, size_t n);
  void add(const std::vector<uint32_t>& ids) { add(ids.data(), ids.size()); }
  // End of the data: handles the remainder.
  void finish();
  const PackerStats& stats() const { return stats_; }
  const PackerOptions& options() const { return options_; }

  // Pending state, saved with a resumable checkpoint and restored on --resume.
  struct State {
    std::vector<uint32_t> carry;  // concat/guide: tokens not yet in a row
    uint64_t group_count = 0;     // guide: documents in the current group
    PackerStats stats;
  };
  State state() const;
  void restore(const State& s);

 private:
  void emit_full_rows();
  void emit_row(const uint32_t* ids, size_t real);

  PackerOptions options_;
  RowSink sink_;
  PackerStats stats_;
  std::vector<uint32_t> carry_;
  std::vector<uint32_t> row_;
  uint64_t group_count_ = 0;
};

}  // namespace bertpt::data
