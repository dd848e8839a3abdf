// HF's Metaspace pre-tokenizer, the sentencepiece way of
// marking spaces: in each word, every ' ' becomes the replacement ("▁"); the replacement is then
// prepended unless the word already starts with it (prepend_scheme "always"; "first": only to the
// word that starts the input; "never": not at all); with `split`, the word is cut before every
// replacement character (HF's MergedWithNext: "a▁▁b" -> "a", "▁", "▁b").
#pragma once

#include <string>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {

enum class PrependScheme { kAlways, kFirst, kNever };

// The options of a Metaspace object, which HF shares between the pre-tokenizer and the decoder.
struct MetaspaceOptions {
  std::string replacement = "\xE2\x96\x81";  // U+2581, one character
  PrependScheme prepend_scheme = PrependScheme::kAlways;
  bool split = true;

  // "replacement" (one character, required), "prepend_scheme" (default "always"), the legacy
  // "add_prefix_space" (false asks for "never", and HF refuses it with any other prepend_scheme),
  // "split" (default true). BadInput naming the field otherwise.
  static MetaspaceOptions from_json(const JsonFields& f);
  nlohmann::ordered_json to_json() const;
};

class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  explicit MetaspacePreTokenizer(MetaspaceOptions options) : options_(std::move(options)) {}
  static std::shared_ptr<const MetaspacePreTokenizer> from_json(const JsonFields& f) {
    return std::make_shared<const MetaspacePreTokenizer>(MetaspaceOptions::from_json(f));
  }
  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override { return options_.to_json(); }
  std::string word_start_marker() const override { return options_.replacement; }
  const MetaspaceOptions& options() const { return options_; }

 private:
  // Appends to `out` the pieces of `span` (whose bytes are `bytes`) cut before each replacement.
  void split_span(const Words::Span& span, std::string_view bytes, std::vector<Words::Span>& out) const;

  MetaspaceOptions options_;
};

}  // namespace bertpt::tokenizer
