#include "tokenizer/onig_regex.h"

#include <oniguruma.h>

#include "common/error.h"

namespace bertpt::tokenizer {
namespace {

void initialize_once() {
  static const bool initialized = [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
    return true;
  }();
  (void)initialized;
}

std::string onig_message(int code, OnigErrorInfo* info) {
  OnigUChar buffer[ONIG_MAX_ERROR_MESSAGE_LEN];
  const int n = info ? onig_error_code_to_str(buffer, code, info) : onig_error_code_to_str(buffer, code);
  return std::string(reinterpret_cast<const char*>(buffer), n > 0 ? size_t(n) : 0);
}

// Bytes of the UTF-8 character at text[at] (1 past the end, as the onig crate steps there).
size_t char_length(std::string_view text, size_t at) {
  if (at >= text.size()) return 1;
  const unsigned char b = static_cast<unsigned char>(text[at]);
  const size_t n = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  return std::min(n, text.size() - at);
}

}  // namespace

OnigRegex::OnigRegex(const std::string& pattern, const std::string& what) : pattern_(pattern) {
  initialize_once();
  regex_t* reg = nullptr;
  OnigErrorInfo info{};
  const auto* p = reinterpret_cast<const OnigUChar*>(pattern.data());
  const int r = onig_new(&reg, p, p + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
  if (r != ONIG_NORMAL) {
    throw BadInput(what + ": the regular expression '" + pattern + "' does not compile: " + onig_message(r, &info),
                   "Hugging Face compiles it with Oniguruma's default (Ruby-like) syntax");
  }
  regex_ = reg;
}

OnigRegex::~OnigRegex() {
  if (regex_) onig_free(static_cast<regex_t*>(regex_));
}

void OnigRegex::find_all(std::string_view text, std::vector<std::pair<size_t, size_t>>& matches) const {
  matches.clear();
  OnigRegion* region = onig_region_new();
  const auto* start = reinterpret_cast<const OnigUChar*>(text.data());
  const OnigUChar* end = start + text.size();
  size_t last_end = 0;
  bool has_last_match = false;
  size_t last_match_end = 0;
  while (last_end <= text.size()) {
    onig_region_clear(region);
    const int r = onig_search(static_cast<regex_t*>(regex_), start, end, start + last_end, end, region,
                              ONIG_OPTION_NONE);
    if (r == ONIG_MISMATCH) break;
    if (r < 0) {
      onig_region_free(region, 1);
      throw Error(Error::Kind::Internal, "Oniguruma failed on '" + pattern_ + "': " + onig_message(r, nullptr));
    }
    const size_t s = size_t(region->beg[0]);
    const size_t e = size_t(region->end[0]);
    if (s == e && has_last_match && last_match_end == e) {
      last_end += char_length(text, last_end);  // no empty match right after the last one
      continue;
    }
    last_end = e;
    has_last_match = true;
    last_match_end = e;
    matches.emplace_back(s, e);
  }
  onig_region_free(region, 1);
}

std::string OnigRegex::escape(std::string_view literal) {
  static constexpr std::string_view kMeta = "\\.+*?()|[]{}^$#&-~";
  std::string out;
  out.reserve(literal.size() * 2);
  for (const char c : literal) {
    if (kMeta.find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace bertpt::tokenizer
