#include "tokenizer/pre_tokenizers/punctuation.h"

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

std::shared_ptr<const Punctuation> Punctuation::from_json(const JsonFields& f) {
  const std::optional<JsonValue> behavior = f.optional("behavior");
  return std::make_shared<const Punctuation>(behavior ? read_split_behavior(*behavior) : SplitBehavior::kIsolated);
}

void Punctuation::pre_tokenize(Words& words) const {
  split_words(words, behavior_, [](std::string_view word, std::vector<PatternMatch>& out) {
    char_matches(
        word, [](uint32_t cp) { return (unicode::lookup(cp) & unicode::kPunct) != 0; }, out);
  });
}

nlohmann::ordered_json Punctuation::to_json() const {
  return {{"type", "Punctuation"}, {"behavior", split_behavior_name(behavior_)}};
}

}  // namespace bertpt::tokenizer
