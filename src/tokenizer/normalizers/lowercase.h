// HF's Lowercase normalizer: each character through Rust's
// char::to_lowercase (unconditional mappings, current Unicode: the lowercase records of
// unicode_tables.h, which the BERT normalizer uses too).
#pragma once

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class LowercaseNormalizer final : public Normalizer {
 public:
  static std::shared_ptr<const LowercaseNormalizer> from_json(const JsonFields&) {
    return std::make_shared<const LowercaseNormalizer>();
  }
  void normalize(std::string_view text, std::string& out) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "Lowercase"}}; }
};

}  // namespace bertpt::tokenizer
