#include "tokenizer/pre_tokenizers/digits.h"

#include "tokenizer/pre_tokenizers/char_classes.h"
#include "tokenizer/pre_tokenizers/split.h"

namespace bertpt::tokenizer {

std::shared_ptr<const Digits> Digits::from_json(const JsonFields& f) {
  return std::make_shared<const Digits>(f.boolean("individual_digits"));
}

// HF: split(char::is_numeric, Isolated) for individual digits, split(char::is_numeric, Contiguous)
// for runs (a run of non-digits stays one piece either way).
void Digits::pre_tokenize(Words& words) const {
  const SplitBehavior behavior = individual_digits_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous;
  split_words(words, behavior, [](std::string_view word, std::vector<PatternMatch>& out) {
    char_matches(
        word, [](uint32_t cp) { return (char_classes::lookup(cp) & char_classes::kNumeric) != 0; }, out);
  });
}

nlohmann::ordered_json Digits::to_json() const {
  return {{"type", "Digits"}, {"individual_digits", individual_digits_}};
}

}  // namespace bertpt::tokenizer
