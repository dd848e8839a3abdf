// The Split pre-tokenizer of Hugging Face tokenizers (pre_tokenizers/split.rs) and what the other
// splitting pre-tokenizers share with it: a pattern's matches tile each word into matched and
// unmatched pieces (HF's Pattern::find_matches), and a SplitDelimiterBehavior decides which pieces
// are kept and which are glued together (HF's NormalizedString::split). Empty pieces are dropped.
//
// A Split pattern is {"String": s} or {"Regex": r}; both run on Oniguruma, as in HF: a String is
// escaped as Rust's regex::escape escapes it, then compiled (tokenizer/onig_regex.h). bertpt links
// the system's Oniguruma (Debian 12: 6.9.8, Unicode 14.0) where HF bundles 6.9.10 (Unicode 16.0), so
// \p{L} and \p{N} (what the GPT-2 / Llama 3 / Qwen patterns test) are rewritten as the ranges of HF's
// own classes (char_classes.h) before compiling; other Unicode classes (\w, \d, \p{Lu}, scripts)
// keep the system's Unicode 14.0 and miss what Unicode 15 and 16 added.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/onig_regex.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

enum class SplitBehavior : uint8_t { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous" (BadInput else).
SplitBehavior read_split_behavior(const JsonValue& value);
const char* split_behavior_name(SplitBehavior behavior);

// One piece of a word: [begin, end) and whether the pattern matched it.
struct PatternMatch {
  uint32_t begin, end;
  bool is_match;
};

// The pieces `behavior` keeps of `matches` (which tile a word), as [begin, end) ranges, possibly empty.
void apply_split_behavior(const std::vector<PatternMatch>& matches, SplitBehavior behavior,
                          std::vector<std::pair<uint32_t, uint32_t>>& kept);

// HF's Pattern for a character predicate: each character for which `is_match(code point)` holds is
// a match of its own, the runs between are non-matches; an empty text is one empty non-match.
template <class Predicate>
void char_matches(std::string_view text, Predicate&& is_match, std::vector<PatternMatch>& out);

// Words -> the kept pieces of each (views, no copies), given `find` filling the matches of one word.
template <class Find>
void split_words(Words& words, SplitBehavior behavior, Find&& find);

// `pattern` with each \p{L} and \p{N} (outside or inside a bracket expression) spelled out as the
// code point ranges HF's Oniguruma gives them, so the system's older Oniguruma matches the same.
std::string with_hf_letter_and_number_classes(std::string_view pattern);

// HF's find_matches for a regex: its matches (tokenizer/onig_regex.h, the onig crate's find_iter) and
// the non-matches between them; `invert` flips which is which. An empty text is one empty non-match.
void regex_matches(const OnigRegex& regex, std::string_view text, bool invert, std::vector<PatternMatch>& out);

class Split final : public PreTokenizer {
 public:
  // `is_regex`: the pattern is {"Regex": pattern}, else {"String": pattern}.
  Split(std::string pattern, bool is_regex, SplitBehavior behavior, bool invert, const std::string& field = "pattern");
  // {"type": "Split", "pattern": {"String"|"Regex": ...}, "behavior": ..., "invert": b}; all required.
  static std::shared_ptr<const Split> from_json(const JsonFields& f);

  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override;

 private:
  std::string pattern_;
  bool is_regex_;
  SplitBehavior behavior_;
  bool invert_;
  std::unique_ptr<OnigRegex> regex_;
};

// ---- template definitions ----

template <class Predicate>
void char_matches(std::string_view text, Predicate&& is_match, std::vector<PatternMatch>& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  uint32_t run_start = 0;
  for (size_t i = 0, len = 0; i < text.size(); i += len) {
    const uint32_t cp = unicode::decode_utf8(p + i, text.size() - i, len);
    if (!is_match(cp)) continue;
    if (run_start < i) out.push_back({run_start, uint32_t(i), false});
    out.push_back({uint32_t(i), uint32_t(i + len), true});
    run_start = uint32_t(i + len);
  }
  if (run_start < text.size() || text.empty()) out.push_back({run_start, uint32_t(text.size()), false});
}

template <class Find>
void split_words(Words& words, SplitBehavior behavior, Find&& find) {
  thread_local std::vector<Words::Span> out;
  thread_local std::vector<PatternMatch> matches;
  thread_local std::vector<std::pair<uint32_t, uint32_t>> kept;
  out.clear();
  for (const Words::Span& s : words.spans) {
    matches.clear();
    kept.clear();
    find(words.view(s), matches);
    apply_split_behavior(matches, behavior, kept);
    for (const auto& [b, e] : kept) Words::push_part(s, b, e, out);
  }
  words.spans.swap(out);
}

}  // namespace bertpt::tokenizer
