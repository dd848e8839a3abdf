// The WordPiece model (docs/hf-compat.md): a vocabulary and greedy longest-match-first
// splitting of one pre-tokenized word into ids, as Hugging Face's WordPiece model does it:
//   * a word of more than max_input_chars_per_word characters -> one [UNK];
//   * from the left, take the longest vocabulary entry; pieces after the first are looked up with
//     the continuing-subword prefix ("##");
//   * if some position has no match, the whole word -> one [UNK].
// Lookups go through two open-addressing hash tables over one string arena (whole tokens, and the
// remainders of prefixed tokens), so encoding a word allocates nothing and builds no strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/models/model.h"

namespace bertpt::tokenizer {

struct WordPieceOptions {
  std::string unk_token = "[UNK]";
  std::string continuing_subword_prefix = "##";
  size_t max_input_chars_per_word = 100;
};

class WordPiece final : public Model {
 public:
  WordPiece() = default;
  // The tokenizer.json "model" object `f` (type WordPiece).
  static std::shared_ptr<const WordPiece> from_json(const JsonFields& f);

  // `tokens[i]` gets id i. Throws BadInput (naming `source` and the line) on a duplicate token or
  // when the unk token is missing.
  static WordPiece from_tokens(std::vector<std::string> tokens, WordPieceOptions options, const std::string& source);
  // Explicit ids, as in tokenizer.json; ids may leave gaps but must be unique.
  static WordPiece from_map(std::vector<std::pair<std::string, uint32_t>> entries, WordPieceOptions options,
                            const std::string& source);

  // Appends the ids of `word` (one pre-tokenized word, valid UTF-8) to `ids`.
  void encode_word(std::string_view word, std::vector<uint32_t>& ids) const override;

  std::optional<uint32_t> token_to_id(std::string_view token) const override;
  // Empty view for an id that has no token.
  std::string_view id_to_token(uint32_t id) const override;
  bool has_id(uint32_t id) const override { return id < by_id_.size() && by_id_[id].second != kNoToken; }

  size_t size() const override { return count_; }
  // One past the largest id.
  size_t id_limit() const override { return by_id_.size(); }
  std::optional<uint32_t> unk_id() const override { return unk_id_; }
  std::string unk_token() const override { return options_.unk_token; }
  std::string_view type() const override { return "WordPiece"; }
  nlohmann::ordered_json to_json() const override;
  const WordPieceOptions& options() const { return options_; }

 private:
  static constexpr uint32_t kNoToken = 0xFFFFFFFFu;

  // Open addressing, linear probing; a slot holds the key's hash and the token's id.
  struct Table {
    struct Slot {
      uint32_t hash = 0;
      uint32_t id = kNoToken;
      uint32_t offset = 0;  // key = arena_[offset, offset + length)
      uint32_t length = 0;
    };
    std::vector<Slot> slots;
    size_t mask = 0;
    size_t max_key_length = 0;
  };

  void build(std::vector<std::pair<std::string, uint32_t>> entries, const std::string& source, bool entries_are_lines);
  static void insert(Table& table, const std::string& arena, uint32_t offset, uint32_t length, uint32_t id);
  uint32_t find(const Table& table, const char* key, size_t length) const;

  WordPieceOptions options_;
  std::string arena_;                                 // every token, concatenated
  std::vector<std::pair<uint32_t, uint32_t>> by_id_;  // id -> (offset, length); length kNoToken: none
  Table whole_;                                       // every token
  Table continuation_;                                // tokens starting with the prefix, keyed without it
  size_t count_ = 0;
  uint32_t unk_id_ = 0;
};

}  // namespace bertpt::tokenizer
