// HF's StripAccents normalizer: removes every combining mark
// (general category Mn, Mc or Me in the Unicode 9.0 of HF's unicode-normalization-alignments). It
// decomposes nothing: HF files put NFD or NFKD before it.
#pragma once

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class StripAccentsNormalizer final : public Normalizer {
 public:
  static std::shared_ptr<const StripAccentsNormalizer> from_json(const JsonFields&) {
    return std::make_shared<const StripAccentsNormalizer>();
  }
  void normalize(std::string_view text, std::string& out) const override;
  bool keeps_origin(std::string_view text) const override;  // false when `text` starts with a mark
  nlohmann::ordered_json to_json() const override { return {{"type", "StripAccents"}}; }
};

}  // namespace bertpt::tokenizer
