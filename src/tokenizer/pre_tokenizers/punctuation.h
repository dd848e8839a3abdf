// The Punctuation pre-tokenizer of Hugging Face tokenizers (pre_tokenizers/punctuation.rs): each
// punctuation character (ASCII punctuation or Unicode category P*, the same test as the BERT
// pre-tokenizer's, unicode_tables.h kPunct) is a match, handled by `behavior` (default Isolated).
#pragma once

#include <memory>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/split.h"

namespace bertpt::tokenizer {

class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(SplitBehavior behavior = SplitBehavior::kIsolated) : behavior_(behavior) {}
  // {"type": "Punctuation", "behavior": ...}; behavior defaults to Isolated.
  static std::shared_ptr<const Punctuation> from_json(const JsonFields& f);
  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override;

 private:
  SplitBehavior behavior_;
};

}  // namespace bertpt::tokenizer
