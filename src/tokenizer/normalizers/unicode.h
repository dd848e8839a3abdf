// HF's NFC, NFD, NFKC and NFKD normalizers, with the Unicode 9.0 data of the crate HF normalizes
// with (unicode-normalization-alignments): a code point assigned after 9.0 is left alone, has combining class 0 and
// composes with nothing. Decompositions, combining classes and compositions come from utf8proc, restricted to the code
// points of 9.0 (their data never changes: Unicode's stability policy).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

// Whether `cp` was assigned in Unicode 9.0 or earlier (normalizers/unicode9_ranges.inc).
bool assigned_in_unicode_9(uint32_t cp);
// unicode-normalization-alignments' is_combining_mark: general category Mn, Mc or Me in Unicode 9.0.
bool is_combining_mark_unicode_9(uint32_t cp);

class UnicodeNormalizer final : public Normalizer {
 public:
  enum class Form { kNFC, kNFD, kNFKC, kNFKD };
  explicit UnicodeNormalizer(Form form) : form_(form) {}
  // {"type": "NFC"} (or NFD, NFKC, NFKD): the form is the type.
  static std::shared_ptr<const UnicodeNormalizer> from_json(const JsonFields& f);

  void normalize(std::string_view text, std::string& out) const override;
  nlohmann::ordered_json to_json() const override;
  Form form() const { return form_; }

 private:
  Form form_;
};

}  // namespace bertpt::tokenizer
