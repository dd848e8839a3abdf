// A normalizer of Hugging Face tokenizers (tokenizer.json "normalizer"): text in, normalized text out.
// Each kind is a file of this folder; read_normalizer() builds the one a tokenizer.json names and
// to_json() writes it back, so a tokenizer.json reads as its list of components. Offsets are not
// tracked: bertpt needs the ids, not the alignments.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/json_fields.h"

namespace bertpt::tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Appends the normalized form of `text` (valid UTF-8) to `out`.
  virtual void normalize(std::string_view text, std::string& out) const = 0;
  // The component's tokenizer.json object ({"type": ..., ...}), as Hugging Face writes it.
  virtual nlohmann::ordered_json to_json() const = 0;
};

using NormalizerPtr = std::shared_ptr<const Normalizer>;

// The normalizer a tokenizer.json object describes (normalizers/from_json.cc). Throws BadInput naming
// the field for an unknown "type" or a malformed option.
NormalizerPtr read_normalizer(const JsonValue& value);

}  // namespace bertpt::tokenizer
