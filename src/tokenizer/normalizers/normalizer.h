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
  // Whether HF aligns the first character of the normalized `text` with the first character of `text`
  // (its original offset stays 0), which Metaspace's prepend_scheme "first" asks of the text that starts
  // the input. False where leading characters are dropped: Strip's whitespace, Nmt's controls,
  // StripAccents' marks, a leading Replace match with empty content or of several characters.
  virtual bool keeps_origin(std::string_view /*text*/) const { return true; }
  // normalize() and keeps_origin() in one pass (a Sequence would otherwise run its steps twice).
  virtual bool normalize_keeping_origin(std::string_view text, std::string& out) const {
    const bool kept = keeps_origin(text);
    normalize(text, out);
    return kept;
  }
  // The component's tokenizer.json object ({"type": ..., ...}), as Hugging Face writes it.
  virtual nlohmann::ordered_json to_json() const = 0;
};

using NormalizerPtr = std::shared_ptr<const Normalizer>;

// The normalizer a tokenizer.json object describes (normalizers/from_json.cc). Throws BadInput naming
// the field for an unknown "type" or a malformed option.
NormalizerPtr read_normalizer(const JsonValue& value);

}  // namespace bertpt::tokenizer
