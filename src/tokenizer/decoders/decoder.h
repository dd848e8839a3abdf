// A decoder of Hugging Face tokenizers (tokenizer.json "decoder"): token strings back to text. As in
// HF, a decoder rewrites the list of tokens (decode_chain) and the text is their concatenation, so
// decoders compose in a Sequence. Each kind is a file of this folder; read_decoder() builds the one a
// tokenizer.json names.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json_fields.h"

namespace bertpt::tokenizer {

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Rewrites `tokens` in place (it may merge them into fewer).
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
  // The component's tokenizer.json object.
  virtual nlohmann::ordered_json to_json() const = 0;
};

using DecoderPtr = std::shared_ptr<const Decoder>;

// The decoder a tokenizer.json object describes (decoders/from_json.cc). Throws BadInput naming the
// field for an unknown "type" or a malformed option.
DecoderPtr read_decoder(const JsonValue& value);

// The text of `tokens` through `decoder` (null: HF joins the tokens with spaces).
std::string decode_tokens(const Decoder* decoder, std::vector<std::string> tokens);

}  // namespace bertpt::tokenizer
