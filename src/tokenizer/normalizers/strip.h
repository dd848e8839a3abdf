// HF's Strip normalizer: removes leading and/or trailing
// whitespace, Rust's char::is_whitespace (the White_Space property, as unicode_tables.h flags it).
#pragma once

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

// Bytes of whitespace (Rust's char::is_whitespace) at the start / the end of valid UTF-8 `text`.
size_t leading_whitespace(std::string_view text);
size_t trailing_whitespace(std::string_view text);

class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  // {"type": "Strip", "strip_left": b, "strip_right": b}, both required as HF reads them.
  static std::shared_ptr<const StripNormalizer> from_json(const JsonFields& f) {
    return std::make_shared<const StripNormalizer>(f.boolean("strip_left"), f.boolean("strip_right"));
  }
  void normalize(std::string_view text, std::string& out) const override;
  bool keeps_origin(std::string_view text) const override { return !left_ || leading_whitespace(text) == 0; }
  nlohmann::ordered_json to_json() const override {
    return {{"type", "Strip"}, {"strip_left", left_}, {"strip_right", right_}};
  }

 private:
  bool left_, right_;
};

}  // namespace bertpt::tokenizer
