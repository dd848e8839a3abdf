// BertPreTokenizer (docs/hf-compat.md): split on whitespace (dropped), then isolate every
// punctuation character as its own word.
#pragma once

#include <string_view>
#include <vector>

namespace bertpt::tokenizer {

// Appends the words of `normalized` (valid UTF-8) to `words`; the views point into `normalized`.
void bert_pre_tokenize(std::string_view normalized, std::vector<std::string_view>& words);

}  // namespace bertpt::tokenizer
