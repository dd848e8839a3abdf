// HF's Nmt normalizer (sentencepiece's nmt rules without NFKC): removes the control characters U+0001-0008, U+000B,
// U+000E-001F, U+007F, U+008F, U+009F, and turns U+0009, U+000A, U+000C, U+000D, U+1680, U+200B-200F, U+2028, U+2029,
// U+2581, U+FEFF and U+FFFD into ' '.
#pragma once

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class NmtNormalizer final : public Normalizer {
 public:
  static std::shared_ptr<const NmtNormalizer> from_json(const JsonFields&) {
    return std::make_shared<const NmtNormalizer>();
  }
  void normalize(std::string_view text, std::string& out) const override;
  // HF drops a leading control character together with its alignment.
  bool keeps_origin(std::string_view text) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "Nmt"}}; }
};

}  // namespace bertpt::tokenizer
