// A tokenization model of Hugging Face tokenizers (tokenizer.json "model"): WordPiece, BPE or
// Unigram. It owns the vocabulary and turns one pre-tokenized word into ids. Each kind is a file of
// this folder; read_model() builds the one a tokenizer.json names. Models are immutable after
// construction and encode_word is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_fields.h"

namespace bertpt::tokenizer {

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of one pre-tokenized word (valid UTF-8, not empty) to `ids`.
  virtual void encode_word(std::string_view word, std::vector<uint32_t>& ids) const = 0;

  virtual std::optional<uint32_t> token_to_id(std::string_view token) const = 0;
  // Empty view for an id that has no token.
  virtual std::string_view id_to_token(uint32_t id) const = 0;
  virtual bool has_id(uint32_t id) const = 0;
  // Tokens in the vocabulary, and one past the largest id.
  virtual size_t size() const = 0;
  virtual size_t id_limit() const = 0;
  // The unknown token's id, when the model has one (a byte-level BPE usually has none).
  virtual std::optional<uint32_t> unk_id() const = 0;
  virtual std::string unk_token() const = 0;  // "" when none
  // "WordPiece", "BPE" or "Unigram".
  virtual std::string_view type() const = 0;
  // The component's tokenizer.json object (vocabulary included).
  virtual nlohmann::ordered_json to_json() const = 0;
};

using ModelPtr = std::shared_ptr<const Model>;

// The model a tokenizer.json "model" object describes (models/from_json.cc). Throws BadInput naming
// the file and field for an unknown type or a malformed vocabulary.
ModelPtr read_model(const JsonValue& value);

// A token id of tokenizer.json: an unsigned integer below 2^32 - 1 (BadInput naming the field else).
uint32_t json_token_id(const JsonValue& v);
// The model's vocabulary as tokenizer.json writes it: {"token": id, ...} in id order.
nlohmann::ordered_json vocab_json(const Model& model);

}  // namespace bertpt::tokenizer
