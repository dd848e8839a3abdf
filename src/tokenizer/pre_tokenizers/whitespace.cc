#include "tokenizer/pre_tokenizers/whitespace.h"

#include "tokenizer/pre_tokenizers/char_classes.h"
#include "tokenizer/pre_tokenizers/split.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

enum WhitespaceClass : uint8_t { kWordChar, kOtherChar, kSpaceChar };

inline WhitespaceClass whitespace_class(uint32_t cp) {
  const uint8_t f = char_classes::lookup(cp);
  return (f & char_classes::kWord) ? kWordChar : (f & char_classes::kSpace) ? kSpaceChar : kOtherChar;
}

}  // namespace

// HF splits with Invert(regex) and Removed: the regex's matches are kept, the gaps (whitespace)
// removed. Leftmost-first, each alternative greedy: a match is a maximal run of one class.
void Whitespace::pre_tokenize(Words& words) const {
  split_words(words, SplitBehavior::kIsolated, [](std::string_view word, std::vector<PatternMatch>& out) {
    const auto* p = reinterpret_cast<const unsigned char*>(word.data());
    size_t i = 0, len = 0;
    while (i < word.size()) {
      const WhitespaceClass k = whitespace_class(unicode::decode_utf8(p + i, word.size() - i, len));
      const size_t begin = i;
      i += len;
      while (i < word.size() && whitespace_class(unicode::decode_utf8(p + i, word.size() - i, len)) == k) i += len;
      if (k != kSpaceChar) out.push_back({uint32_t(begin), uint32_t(i), true});
    }
  });
}

void WhitespaceSplit::pre_tokenize(Words& words) const {
  split_words(words, SplitBehavior::kRemoved, [](std::string_view word, std::vector<PatternMatch>& out) {
    char_matches(
        word, [](uint32_t cp) { return (char_classes::lookup(cp) & char_classes::kSpace) != 0; }, out);
  });
}

}  // namespace bertpt::tokenizer
