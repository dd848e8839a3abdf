#include "tokenizer/normalizers/replace.h"

#include <utility>
#include <vector>

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

Replacement::Replacement(bool is_regex, std::string pattern, std::string content, const std::string& what)
    : is_regex_(is_regex), pattern_(std::move(pattern)), content_(std::move(content)) {
  regex_ = std::make_shared<const OnigRegex>(is_regex_ ? pattern_ : OnigRegex::escape(pattern_), what);
}

Replacement Replacement::from_json(const JsonFields& f) {
  const JsonFields pattern = f.object("pattern");
  const bool has_string = pattern.has("String");
  const bool has_regex = pattern.has("Regex");
  if (has_string == has_regex || pattern.entries().size() != 1) {
    f.fail("pattern", "is not {\"String\": ...} or {\"Regex\": ...}");
  }
  const char* kind = has_regex ? "Regex" : "String";
  return Replacement(has_regex, pattern.str(kind), f.str("content"),
                     f.file() + ": field \"" + pattern.name(kind) + "\"");
}

nlohmann::ordered_json Replacement::to_json() const {
  nlohmann::ordered_json j;
  j["type"] = "Replace";
  j["pattern"] = {{is_regex_ ? "Regex" : "String", pattern_}};
  j["content"] = content_;
  return j;
}

bool Replacement::keeps_origin(std::string_view text) const {
  if (text.empty()) return true;
  size_t match_end = 0;
  if (!is_regex_ && !pattern_.empty()) {
    if (text.starts_with(pattern_)) match_end = pattern_.size();
  } else {
    static thread_local std::vector<std::pair<size_t, size_t>> matches;
    regex_->find_all(text, matches);
    if (!matches.empty() && matches.front().first == 0) match_end = matches.front().second;
  }
  if (match_end == 0) return true;  // no match at the start, or an empty one
  if (content_.empty()) return false;
  size_t len;
  unicode::decode_utf8(reinterpret_cast<const unsigned char*>(text.data()), text.size(), len);
  return len == match_end;  // a one-character match
}

void Replacement::apply(std::string_view text, std::string& out) const {
  if (text.empty()) return;
  if (!is_regex_ && !pattern_.empty()) {
    // A literal: Oniguruma's leftmost, non-overlapping matches are std::string_view::find's.
    size_t last = 0;
    for (size_t at = text.find(pattern_); at != std::string_view::npos; at = text.find(pattern_, last)) {
      out.append(text.substr(last, at - last));
      out.append(content_);
      last = at + pattern_.size();
    }
    out.append(text.substr(last));
    return;
  }
  static thread_local std::vector<std::pair<size_t, size_t>> matches;
  regex_->find_all(text, matches);
  size_t last = 0;
  for (const auto& [begin, end] : matches) {
    out.append(text.substr(last, begin - last));
    out.append(content_);
    last = end;
  }
  out.append(text.substr(last));
}

}  // namespace bertpt::tokenizer
