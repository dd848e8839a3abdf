// HF's Prepend normalizer: `prepend` before a text that is not
// empty (an empty one stays empty).
#pragma once

#include <string>

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  // {"type": "Prepend", "prepend": "▁"} ("prepend" required).
  static std::shared_ptr<const PrependNormalizer> from_json(const JsonFields& f) {
    return std::make_shared<const PrependNormalizer>(f.str("prepend"));
  }
  void normalize(std::string_view text, std::string& out) const override {
    if (text.empty()) return;
    out.append(prepend_);
    out.append(text);
  }
  nlohmann::ordered_json to_json() const override { return {{"type", "Prepend"}, {"prepend", prepend_}}; }

 private:
  std::string prepend_;
};

}  // namespace bertpt::tokenizer
