// The BPE model of Hugging Face tokenizers (byte-level BPE of GPT-2, RoBERTa, ModernBERT; also
// character BPE with unk_token / byte_fallback): a vocabulary, an ordered list of merges, and the
// encoding of one pre-tokenized word exactly as HF's models/bpe/{model.rs,word.rs} do it:
//   * ignore_merges: a word that is itself in the vocabulary is one token, before anything else;
//   * the word starts as one symbol per character (continuing_subword_prefix before every character
//     but the first, end_of_word_suffix after the last); a character not in the vocabulary becomes
//     its bytes' <0xNN> tokens when byte_fallback and all of them exist, else unk_token (runs of
//     unknown characters are one unk when fuse_unk), else it is dropped;
//   * then the lowest-ranked merge present anywhere in the word is applied, leftmost first, until
//     none applies (a priority queue by (rank, position), stale entries skipped as HF skips them).
// Encoding allocates nothing per word once warm: the vocabulary and the merges are open-addressing
// tables, and words already seen come from a per-thread cache of words under 256 bytes (HF's length
// limit; 50,000 words where HF keeps 10,000, which only changes which words are fast).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/models/model.h"

namespace bertpt::tokenizer {

struct BpeOptions {
  // HF reads and writes dropout, and applies it whenever it is set and not 0 (a random merge skip
  // per merge). bertpt keeps the value for the file and always encodes as with none: ids must be
  // reproducible. A value outside [0, 1] is refused, as HF refuses it.
  std::optional<float> dropout;
  std::optional<std::string> unk_token;
  std::optional<std::string> continuing_subword_prefix;
  std::optional<std::string> end_of_word_suffix;
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
};

// Where a model's vocabulary and merges come from, for errors: `FILE: field "FIELD.merges[17]" ...`.
struct BpeSource {
  std::string file;   // "tokenizer.json"
  std::string field;  // the model object's path, "model"
};

class Bpe final : public Model {
 public:
  // `vocab`: token -> id (ids unique; gaps allowed as HF allows them). `merges`: pairs of tokens in
  // rank order; both tokens and their concatenation (the second without continuing_subword_prefix)
  // must be in the vocabulary. Throws BadInput naming `source` and the entry otherwise.
  Bpe(std::vector<std::pair<std::string, uint32_t>> vocab,
      const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options, const BpeSource& source);
  ~Bpe() override;
  // The tokenizer.json "model" object `f` (type BPE). merges may be ["a b", ...] (the older form;
  // "#version" lines skipped) or [["a", "b"], ...] (what HF writes since 0.20).
  static std::shared_ptr<const Bpe> from_json(const JsonFields& f);

  void encode_word(std::string_view word, std::vector<uint32_t>& ids) const override;

  std::optional<uint32_t> token_to_id(std::string_view token) const override;
  std::string_view id_to_token(uint32_t id) const override;
  bool has_id(uint32_t id) const override { return id < by_id_.size() && by_id_[id].second != kNone; }
  size_t size() const override { return count_; }
  size_t id_limit() const override { return by_id_.size(); }
  std::optional<uint32_t> unk_id() const override;
  std::string unk_token() const override { return options_.unk_token.value_or(""); }
  std::string_view type() const override { return "BPE"; }
  nlohmann::ordered_json to_json() const override;

  const BpeOptions& options() const { return options_; }
  // The merges as listed (a pair listed twice counts twice; it keeps its last rank, as in HF).
  size_t merge_count() const { return merges_.size(); }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct Merge {
    uint32_t rank = kNone;
    uint32_t new_id = kNone;
  };
  struct MergeSlot {
    uint64_t key = ~0ull;  // left << 32 | right
    Merge merge;
  };
  struct VocabSlot {
    uint32_t hash = 0;
    uint32_t id = kNone;
  };

  void build_vocab(std::vector<std::pair<std::string, uint32_t>> vocab, const BpeSource& source);
  void build_merges(const std::vector<std::pair<std::string, std::string>>& merges, const BpeSource& source);
  uint32_t find(std::string_view token) const;
  Merge find_merge(uint32_t left, uint32_t right) const;
  // The ids of `word` without the cache: initial symbols, then merge_all.
  void tokenize(std::string_view word, std::vector<uint32_t>& ids) const;
  void initial_symbols(std::string_view word, std::vector<uint32_t>& symbols) const;
  void merge_all(std::vector<uint32_t>& symbols) const;
  uint32_t require_unk() const;

  BpeOptions options_;
  std::string arena_;                                 // every token, concatenated
  std::vector<std::pair<uint32_t, uint32_t>> by_id_;  // id -> (offset, length); length kNone: no token
  std::vector<VocabSlot> vocab_slots_;
  size_t vocab_mask_ = 0;
  size_t count_ = 0;
  std::vector<MergeSlot> merge_slots_;
  size_t merge_mask_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> merges_;  // rank -> (left, right)
  // Ids of the single characters U+0000..U+07FF as whole words' middle symbols (no prefix or suffix):
  // every byte-level character is one of them. kNone when not in the vocabulary.
  std::vector<uint32_t> char_ids_;
  std::vector<uint32_t> byte_fallback_ids_;  // "<0xNN>" -> id, kNone when absent
  std::optional<uint32_t> unk_id_;
  uint64_t cache_owner_ = 0;  // this instance's key in the per-thread word caches
};

}  // namespace bertpt::tokenizer
