#include "tokenizer/pre_tokenizers/bert.h"

#include <array>
#include <cstdint>

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

enum CharClass : uint8_t { kWord = 0, kSpace = 1, kPunct = 2 };

// ASCII classes from the same tables as the rest, computed once.
const std::array<uint8_t, 128> kAsciiClass = [] {
  std::array<uint8_t, 128> t{};
  for (uint32_t b = 0; b < 128; ++b) {
    const uint32_t f = unicode::lookup(b);
    t[b] = (f & unicode::kSpace) ? kSpace : (f & unicode::kPunct) ? kPunct : kWord;
  }
  return t;
}();

// Calls emit(begin, end) for each word of `normalized`, in order.
template <class Emit>
void bert_split(std::string_view normalized, Emit&& emit) {
  const auto* p = reinterpret_cast<const unsigned char*>(normalized.data());
  const size_t n = normalized.size();
  size_t word_start = 0;
  bool in_word = false;
  size_t i = 0;
  while (i < n) {
    uint8_t cls;
    size_t len;
    if (p[i] < 0x80) {
      cls = kAsciiClass[p[i]];
      len = 1;
    } else {
      const uint32_t f = unicode::lookup(unicode::decode_utf8(p + i, n - i, len)) & 0xFF;
      cls = (f & unicode::kSpace) ? kSpace : (f & unicode::kPunct) ? kPunct : kWord;
    }
    if (cls == kWord) {
      if (!in_word) {
        word_start = i;
        in_word = true;
      }
    } else {
      if (in_word) {
        emit(word_start, i);
        in_word = false;
      }
      if (cls == kPunct) emit(i, i + len);
    }
    i += len;
  }
  if (in_word) emit(word_start, n);
}

}  // namespace

void bert_pre_tokenize(std::string_view normalized, std::vector<std::string_view>& words) {
  bert_split(normalized, [&](size_t b, size_t e) { words.push_back(normalized.substr(b, e - b)); });
}

void BertPreTokenizer::pre_tokenize(Words& words) const {
  thread_local std::vector<Words::Span> out;
  out.clear();
  for (const Words::Span& s : words.spans) {
    bert_split(words.view(s), [&](size_t b, size_t e) { Words::push_part(s, b, e, out); });
  }
  words.spans.swap(out);
}

}  // namespace bertpt::tokenizer
