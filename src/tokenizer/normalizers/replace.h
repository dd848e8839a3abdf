// HF's Replace normalizer: every match of `pattern` becomes
// `content`. The pattern is {"String": s} (s literally, compiled as an escaped regex, as HF does) or
// {"Regex": r} (Oniguruma, see onig_regex.h). HF's Replace decoder (decoders/replace.h) shares it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/onig_regex.h"

namespace bertpt::tokenizer {

// The pattern and content of a Replace object, and the replacement itself.
class Replacement {
 public:
  Replacement(bool is_regex, std::string pattern, std::string content, const std::string& what = "Replace");
  // {"type": "Replace", "pattern": {"String" | "Regex": "..."}, "content": "..."}.
  static Replacement from_json(const JsonFields& f);
  nlohmann::ordered_json to_json() const;

  // Appends `text` with every match replaced. An empty `text` stays empty (HF matches nothing in it).
  void apply(std::string_view text, std::string& out) const;
  // Whether HF keeps the first output character aligned with the first character of `text`: not when
  // a match at the start is replaced by nothing, nor when it spans several characters (HF aligns the
  // content with the match's last character).
  bool keeps_origin(std::string_view text) const;

 private:
  bool is_regex_;
  std::string pattern_;  // as written in tokenizer.json
  std::string content_;
  std::shared_ptr<const OnigRegex> regex_;
};

class ReplaceNormalizer final : public Normalizer {
 public:
  explicit ReplaceNormalizer(Replacement replacement) : replacement_(std::move(replacement)) {}
  static std::shared_ptr<const ReplaceNormalizer> from_json(const JsonFields& f) {
    return std::make_shared<const ReplaceNormalizer>(Replacement::from_json(f));
  }
  void normalize(std::string_view text, std::string& out) const override { replacement_.apply(text, out); }
  bool keeps_origin(std::string_view text) const override { return replacement_.keeps_origin(text); }
  nlohmann::ordered_json to_json() const override { return replacement_.to_json(); }

 private:
  Replacement replacement_;
};

}  // namespace bertpt::tokenizer
