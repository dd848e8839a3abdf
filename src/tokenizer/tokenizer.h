// A whole tokenizer, as Hugging Face's `tokenizers` runs one: added (special) tokens split out of
// the raw text -> normalizer -> added tokens of the normalized text -> pre-tokenizer -> model
// (WordPiece, BPE or Unigram) -> post-processor (special tokens, type ids); and back through the
// decoder. Each stage is a component of its folder (normalizers/, pre_tokenizers/, models/,
// processors/, decoders/), as in tokenizer.json. Files: hf_files.h.
//
// A Tokenizer is immutable after construction: encode/decode are const and thread-safe, so N
// threads can share one. encode() reuses per-thread scratch buffers and allocates nothing in steady
// state beyond growing the caller's output vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/decoders/decoder.h"
#include "tokenizer/models/model.h"
#include "tokenizer/normalizers/bert.h"
#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/processors/post_processor.h"

namespace bertpt::tokenizer {

// A token matched verbatim in the input before the pipeline runs (HF "added token").
struct AddedToken {
  uint32_t id = 0;
  std::string content;
  bool single_word = false;  // matched only where it is not inside a word
  bool lstrip = false;       // a match takes the whitespace before it
  bool rstrip = false;       // a match takes the whitespace after it
  bool normalized = false;   // matched in the normalized text instead of the raw text
  bool special = true;       // skipped by decode(skip_special_tokens)
};

// The special tokens of a vocabulary by role (transformers' special_tokens_map.json); empty when the
// vocabulary has none. The defaults are BERT's; a RoBERTa-style tokenizer has <s> as cls and bos,
// </s> as sep and eos.
struct BertSpecialTokens {
  std::string pad = "[PAD]";
  std::string unk = "[UNK]";
  std::string cls = "[CLS]";
  std::string sep = "[SEP]";
  std::string mask = "[MASK]";
  std::string bos;
  std::string eos;
};

// The roles named as the hub's tokenizers name them, for each role the first of its names that
// `has` accepts ("" when none does): cls <s> [CLS], sep </s> [SEP], pad <pad> [PAD] <|padding|> <|pad|>,
// unk <unk> [UNK] <|unk|>, mask <mask> [MASK] <|mask|>; bos is <s> and eos </s> when those are cls and sep.
BertSpecialTokens roles_by_name(const std::function<bool(const std::string&)>& has);

// Ids of the special roles, or -1 when the tokenizer has no such token.
struct SpecialIds {
  int64_t pad = -1, unk = -1, cls = -1, sep = -1, mask = -1;
};

class Tokenizer {
 public:
  // Everything a tokenizer is made of. Pieces set to nullopt are absent (HF null).
  struct Parts {
    NormalizerPtr normalizer;       // null: none
    PreTokenizerPtr pre_tokenizer;  // null: the whole normalized text is one word
    ModelPtr model;                 // never null
    std::vector<AddedToken> added_tokens;
    std::optional<PostProcessor> post_processor;
    DecoderPtr decoder;       // null: tokens joined with spaces
    BertSpecialTokens roles;  // names of the special roles (special_ids(), tokenizer_config.json)
  };

  // Throws BadInput when the model is missing, a post-processor template names a token it does not
  // define, or an id lies outside the vocabulary.
  explicit Tokenizer(Parts parts);

  // A standard BERT tokenizer over `vocab` (ids = positions): BertNormalizer with `normalizer`,
  // BertPreTokenizer, WordPiece (unk = roles.unk), [CLS]/[SEP] template, WordPiece decoder. Every
  // string of `special_tokens` becomes a special added token. Throws BadInput (naming `source`) when
  // the vocabulary is malformed or lacks the unk, cls or sep token.
  static Tokenizer bert(std::vector<std::string> vocab, const NormalizerOptions& normalizer,
                        const std::vector<std::string>& special_tokens, const BertSpecialTokens& roles = {},
                        const std::string& source = "vocab");

  // Appends the ids of `text` to `ids`. `text` should be valid UTF-8 (invalid bytes read as U+FFFD).
  void encode(std::string_view text, std::vector<uint32_t>& ids, bool add_special_tokens = true) const;
  // A pair; `type_ids` (may be null) receives the segment ids, parallel to `ids`.
  void encode_pair(std::string_view a, std::string_view b, std::vector<uint32_t>& ids, std::vector<uint32_t>* type_ids,
                   bool add_special_tokens = true) const;
  // HF's early exit under truncation (tokenizers >= 0.23, tokenize_with_limit): appends the ids of
  // `text` without special tokens, but stops after the first word (pre-token) at which `max_tokens`
  // or more ids have been appended; added tokens never stop it. A prefix of encode(text, ids, false),
  // at least min(max_tokens, its length) long. HF runs it on each sequence with the full truncation
  // max_length before longest_first truncation, so it decides the lengths that rule sees.
  void encode_with_limit(std::string_view text, std::vector<uint32_t>& ids, size_t max_tokens) const;
  // The post-processor alone, for sequences already encoded without special tokens (and perhaps
  // truncated, as HF truncates before it adds them): appends the single template over `a`, or the
  // pair template over `a` and `*b` when `b` is set, to `ids`, and the segment ids to `type_ids`
  // (may be null). Without a post-processor: a then b, type ids 0 for a and 1 for b.
  void post_process(const std::vector<uint32_t>& a, const std::vector<uint32_t>* b, std::vector<uint32_t>& ids,
                    std::vector<uint32_t>* type_ids) const;
  // How many ids post_process adds around a single sequence or a pair (HF num_special_tokens_to_add).
  size_t num_special_tokens_to_add(bool pair) const;
  // Token strings of `ids` (for --tokens); unknown ids give "".
  std::string_view id_to_token(uint32_t id) const;
  std::optional<uint32_t> token_to_id(std::string_view token) const;

  // By id, whether the token continues a word rather than starting one, for whole-word masking:
  // WordPiece's continuation prefix ("##"); for the other models a token continues a word unless it
  // starts with the pre-tokenizer's word-start marker ("Ġ" for byte-level BPE, "▁" for Metaspace).
  // Special tokens never continue a word. Empty when the tokenizer marks no word boundaries.
  std::vector<bool> word_continuations() const;

  // HF Tokenizer.decode: unknown ids are skipped; with skip_special_tokens, special added tokens.
  std::string decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const;

  // Model vocabulary plus added tokens that are not in it (HF getVocabSize(true)).
  size_t vocab_size() const { return vocab_size_; }
  bool is_special(uint32_t id) const;
  SpecialIds special_ids() const { return special_ids_; }
  const Parts& parts() const { return parts_; }
  const Model& model() const { return *parts_.model; }
  // The model's type: "WordPiece", "BPE" or "Unigram".
  std::string_view model_type() const { return parts_.model->type(); }

  // The words of normalized text (the pre-tokenizer step alone); `at_origin`: the text starts the input.
  void pre_tokenize(std::string_view normalized, Words& words, bool at_origin = true) const;

 private:
  // BadInput naming the field when an added token's or a post-processor special's id is not below
  // vocab_size() (the constructor's last check).
  void check_ids_in_vocabulary() const;
  // The pipeline below the post-processor: encode_sequence splits out raw added tokens,
  // encode_plain normalizes and splits out normalized ones, encode_normalized pre-tokenizes and runs
  // WordPiece. Each stops after the word at which ids.size() reaches `stop_at` (encode_with_limit)
  // and then returns true.
  bool encode_plain(std::string_view text, bool at_origin, std::vector<uint32_t>& ids, size_t stop_at) const;
  bool encode_normalized(std::string_view normalized, bool at_origin, std::vector<uint32_t>& ids, size_t stop_at) const;
  bool encode_sequence(std::string_view text, std::vector<uint32_t>& ids, size_t stop_at = SIZE_MAX) const;
  // Leftmost-longest match of an added token of the given kind at or after `from`: [pos, pos + len)
  // is what the match removes from the text (its lstrip/rstrip whitespace included).
  bool find_added(std::string_view text, size_t from, bool normalized, size_t& pos, size_t& len, uint32_t& id) const;
  // The leftmost-longest literal match of an added token of the given kind at or after `from`.
  const AddedToken* find_literal(std::string_view text, size_t from, bool normalized, size_t& pos) const;
  bool is_special_content(std::string_view token) const;

  Parts parts_;
  std::vector<std::string>
      added_match_;  // per added token: the string matched (normalized content for normalized ones)
  bool has_raw_added_ = false;
  bool has_normalized_added_ = false;
  bool added_first_byte_[256] = {};  // quick filter for added-token matching
  int single_first_byte_ = -1;       // the one first byte of all added tokens, if they share it
  size_t vocab_size_ = 0;
  SpecialIds special_ids_;
};

}  // namespace bertpt::tokenizer
