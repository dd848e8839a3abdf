// BertNormalizer, exactly as Hugging Face tokenizers applies it (SPEC-hf-compat.md section 2):
// clean_text, handle_chinese_chars, strip_accents, lowercase — in that order, with HF's Unicode
// tables (an older vintage than current Unicode; see the generated tables).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace bertpt::tokenizer {

struct NormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // unset: follows lowercase (HF semantics)
  bool lowercase = true;
};

class BertNormalizer {
 public:
  explicit BertNormalizer(NormalizerOptions options = {});
  // `utf8` must be valid UTF-8 (the corpus readers guarantee it). Appends the result to `out`.
  void normalize(std::string_view utf8, std::string& out) const;
  std::string normalize(std::string_view utf8) const {
    std::string out;
    normalize(utf8, out);
    return out;
  }
  const NormalizerOptions& options() const { return options_; }

 private:
  NormalizerOptions options_;
};

}  // namespace bertpt::tokenizer
