// HF's ByteLevel normalizer: every byte of the text becomes
// its GPT-2 bytes_char character (as the ByteLevel pre-tokenizer writes words; ' ' -> 'Ġ').
#pragma once

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class ByteLevelNormalizer final : public Normalizer {
 public:
  static std::shared_ptr<const ByteLevelNormalizer> from_json(const JsonFields&) {
    return std::make_shared<const ByteLevelNormalizer>();
  }
  void normalize(std::string_view text, std::string& out) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "ByteLevel"}}; }
};

}  // namespace bertpt::tokenizer
