// A regular expression as Hugging Face tokenizers compiles and runs it (its SysRegex over the Rust
// `onig` crate): Oniguruma, UTF-8, ONIG_SYNTAX_DEFAULT (the crate's Syntax::default() is the same
// OnigDefaultSyntax), no options; matches found left to right as the crate's find_iter does, where an
// empty match right where the previous match ended is skipped by moving on one character.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bertpt::tokenizer {

class OnigRegex {
 public:
  // Throws BadInput("`what`: ...") when `pattern` does not compile (what: "FILE: field \"...\"").
  OnigRegex(const std::string& pattern, const std::string& what);
  ~OnigRegex();
  OnigRegex(const OnigRegex&) = delete;
  OnigRegex& operator=(const OnigRegex&) = delete;

  // The [begin, end) byte ranges of the matches in `text`, in order (HF's find_iter).
  void find_all(std::string_view text, std::vector<std::pair<size_t, size_t>>& matches) const;
  const std::string& pattern() const { return pattern_; }

  // `literal` as a pattern that matches exactly it (Rust regex::escape: a backslash before each of
  // \ . + * ? ( ) | [ ] { } ^ $ # & - ~), which HF compiles for its String patterns.
  static std::string escape(std::string_view literal);

 private:
  std::string pattern_;
  void* regex_ = nullptr;  // OnigRegex (regex_t*), kept out of this header
};

}  // namespace bertpt::tokenizer
