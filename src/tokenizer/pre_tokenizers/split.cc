#include "tokenizer/pre_tokenizers/split.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "common/error.h"
#include "tokenizer/pre_tokenizers/char_classes.h"

namespace bertpt::tokenizer {
namespace {

constexpr const char* kBehaviorNames[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};

// The code point ranges of `flag` as the inside of a bracket expression: \x{41}-\x{5A}\x{61}-...
std::string class_body(char_classes::Flag flag) {
  std::string body;
  char buffer[40];
  for (const auto& [first, last] : char_classes::ranges_with(flag)) {
    const int n = first == last ? std::snprintf(buffer, sizeof buffer, "\\x{%X}", first)
                                : std::snprintf(buffer, sizeof buffer, "\\x{%X}-\\x{%X}", first, last);
    body.append(buffer, size_t(n));
  }
  return body;
}

}  // namespace

std::string with_hf_letter_and_number_classes(std::string_view pattern) {
  static const std::string letters = class_body(char_classes::kLetter);
  static const std::string numbers = class_body(char_classes::kNumber);
  std::string out;
  int bracket_depth = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const std::string_view rest = pattern.substr(i);
      const bool letter = rest.rfind("\\p{L}", 0) == 0, number = rest.rfind("\\p{N}", 0) == 0;
      if (letter || number) {
        const std::string& body = letter ? letters : numbers;
        out += bracket_depth > 0 ? body : "[" + body + "]";
        i += 4;
      } else {
        out.append(rest.substr(0, 2));
        ++i;
      }
      continue;
    }
    if (c == '[') ++bracket_depth;
    if (c == ']' && bracket_depth > 0) --bracket_depth;
    out.push_back(c);
  }
  return out;
}

SplitBehavior read_split_behavior(const JsonValue& value) {
  const std::string name = value.str();
  for (size_t i = 0; i < std::size(kBehaviorNames); ++i) {
    if (name == kBehaviorNames[i]) return SplitBehavior(i);
  }
  value.fail("is '" + name + "', not a split behavior",
             "one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

const char* split_behavior_name(SplitBehavior behavior) { return kBehaviorNames[size_t(behavior)]; }

// HF NormalizedString::split: Removed drops the matches; Isolated keeps every piece; Contiguous joins
// neighbours that are both matches or both not; MergedWithPrevious glues a match to the piece before
// it, MergedWithNext to the piece after it (unless that piece is itself a match).
void apply_split_behavior(const std::vector<PatternMatch>& matches, SplitBehavior behavior,
                          std::vector<std::pair<uint32_t, uint32_t>>& kept) {
  const size_t first = kept.size();
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const PatternMatch& m : matches) {
        if (!m.is_match) kept.emplace_back(m.begin, m.end);
      }
      return;
    case SplitBehavior::kIsolated:
      for (const PatternMatch& m : matches) kept.emplace_back(m.begin, m.end);
      return;
    case SplitBehavior::kContiguous:
    case SplitBehavior::kMergedWithPrevious:
      for (const PatternMatch& m : matches) {
        const bool join = behavior == SplitBehavior::kContiguous ? m.is_match == previous_match
                                                                 : m.is_match && !previous_match;
        if (join && kept.size() > first) {
          kept.back().second = m.end;
        } else {
          kept.emplace_back(m.begin, m.end);
        }
        previous_match = m.is_match;
      }
      return;
    case SplitBehavior::kMergedWithNext:
      for (size_t i = matches.size(); i-- > 0;) {
        const PatternMatch& m = matches[i];
        if (m.is_match && !previous_match && kept.size() > first) {
          kept.back().first = m.begin;
        } else {
          kept.emplace_back(m.begin, m.end);
        }
        previous_match = m.is_match;
      }
      std::reverse(kept.begin() + std::ptrdiff_t(first), kept.end());
      return;
  }
}

void regex_matches(const OnigRegex& regex, std::string_view text, bool invert, std::vector<PatternMatch>& out) {
  if (text.empty()) {
    out.push_back({0, 0, invert});
    return;
  }
  thread_local std::vector<std::pair<size_t, size_t>> found;
  regex.find_all(text, found);
  size_t previous = 0;
  for (const auto& [s, e] : found) {
    if (previous != s) out.push_back({uint32_t(previous), uint32_t(s), invert});
    out.push_back({uint32_t(s), uint32_t(e), !invert});
    previous = e;
  }
  if (previous != text.size()) out.push_back({uint32_t(previous), uint32_t(text.size()), invert});
}

Split::Split(std::string pattern, bool is_regex, SplitBehavior behavior, bool invert, const std::string& field)
    : pattern_(std::move(pattern)),
      is_regex_(is_regex),
      behavior_(behavior),
      invert_(invert),
      regex_(std::make_unique<OnigRegex>(
          is_regex ? with_hf_letter_and_number_classes(pattern_) : OnigRegex::escape(pattern_), field)) {}

std::shared_ptr<const Split> Split::from_json(const JsonFields& f) {
  const JsonFields pattern = f.object("pattern");
  const bool is_regex = pattern.has("Regex");
  if (!is_regex && !pattern.has("String")) {
    f.fail("pattern", "has neither \"String\" nor \"Regex\"");
  }
  const char* key = is_regex ? "Regex" : "String";
  return std::make_shared<const Split>(pattern.str(key), is_regex, read_split_behavior(f.value("behavior")),
                                       f.boolean("invert"), f.file() + ": field \"" + pattern.name(key) + "\"");
}

void Split::pre_tokenize(Words& words) const {
  split_words(words, behavior_, [&](std::string_view word, std::vector<PatternMatch>& out) {
    regex_matches(*regex_, word, invert_, out);
  });
}

nlohmann::ordered_json Split::to_json() const {
  nlohmann::ordered_json j;
  j["type"] = "Split";
  j["pattern"] = {{is_regex_ ? "Regex" : "String", pattern_}};
  j["behavior"] = split_behavior_name(behavior_);
  j["invert"] = invert_;
  return j;
}

}  // namespace bertpt::tokenizer
