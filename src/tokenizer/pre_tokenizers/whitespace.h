// The Whitespace and WhitespaceSplit pre-tokenizers of Hugging Face tokenizers
// (pre_tokenizers/whitespace.rs).
//   Whitespace: the matches of `\w+|[^\w\s]+` under the Rust regex crate: runs of word characters
//     and runs of characters that are neither word nor whitespace; whitespace is dropped.
//   WhitespaceSplit: split on whitespace (char::is_whitespace), which is dropped.
// The classes are the engines' own (char_classes.h).
#pragma once

#include <memory>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {

class Whitespace final : public PreTokenizer {
 public:
  static std::shared_ptr<const Whitespace> from_json(const JsonFields&) { return std::make_shared<const Whitespace>(); }
  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "Whitespace"}}; }
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  static std::shared_ptr<const WhitespaceSplit> from_json(const JsonFields&) {
    return std::make_shared<const WhitespaceSplit>();
  }
  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "WhitespaceSplit"}}; }
};

}  // namespace bertpt::tokenizer
