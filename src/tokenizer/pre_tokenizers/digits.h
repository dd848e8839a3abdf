// The Digits pre-tokenizer of Hugging Face tokenizers (pre_tokenizers/digits.rs): numeric characters
// (Rust's char::is_numeric, char_classes.h kNumeric) are split from the rest, each on its own with
// `individual_digits`, else in runs.
#pragma once

#include <memory>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {

class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual_digits) : individual_digits_(individual_digits) {}
  // {"type": "Digits", "individual_digits": b} (required, as HF reads it).
  static std::shared_ptr<const Digits> from_json(const JsonFields& f);
  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override;

 private:
  bool individual_digits_;
};

}  // namespace bertpt::tokenizer
