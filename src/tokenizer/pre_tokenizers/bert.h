// BertPreTokenizer (docs/hf-compat.md): split on whitespace (dropped), then isolate every
// punctuation character as its own word.
#pragma once

#include <string_view>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {

// Appends the words of `normalized` (valid UTF-8) to `words`; the views point into `normalized`.
void bert_pre_tokenize(std::string_view normalized, std::vector<std::string_view>& words);

class BertPreTokenizer final : public PreTokenizer {
 public:
  static std::shared_ptr<const BertPreTokenizer> from_json(const JsonFields&) {
    return std::make_shared<const BertPreTokenizer>();
  }
  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "BertPreTokenizer"}}; }
};

}  // namespace bertpt::tokenizer
