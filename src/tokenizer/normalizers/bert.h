// BertNormalizer, exactly as Hugging Face tokenizers applies it (docs/hf-compat.md):
// clean_text, handle_chinese_chars, strip_accents, lowercase — in that order, with HF's Unicode
// tables (an older vintage than current Unicode; see the generated tables).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

struct NormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // unset: follows lowercase (HF semantics)
  bool lowercase = true;
};

class BertNormalizer final : public Normalizer {
 public:
  explicit BertNormalizer(NormalizerOptions options = {});
  static std::shared_ptr<const BertNormalizer> from_json(const JsonFields& f);
  // `utf8` must be valid UTF-8 (the corpus readers guarantee it). Appends the result to `out`.
  void normalize(std::string_view utf8, std::string& out) const override;
  // False when clean_text deletes the first character (HF: the text then starts past offset 0).
  bool keeps_origin(std::string_view utf8) const override;
  nlohmann::ordered_json to_json() const override;
  std::string normalize(std::string_view utf8) const {
    std::string out;
    normalize(utf8, out);
    return out;
  }
  const NormalizerOptions& options() const { return options_; }

 private:
  NormalizerOptions options_;
  bool strip_accents_;                // options_.strip_accents resolved
  std::array<int16_t, 128> ascii_{};  // ASCII byte -> output byte, or -1 when deleted
};

}  // namespace bertpt::tokenizer
