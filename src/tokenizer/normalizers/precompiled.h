// HF's Precompiled normalizer: sentencepiece's normalization rules as its model ships them,
// `precompiled_charsmap` (base64 in tokenizer.json), read as HF's spm_precompiled crate reads them. The blob is a
// little-endian u32 byte size of a trie, the trie (a darts-clone double array of u32 units: rule keys -> offsets into
// the pool), then the pool of NUL-terminated UTF-8 replacements. As HF applies it, per extended grapheme cluster
// (utf8proc's segmentation):
//   * a cluster shorter than 6 bytes that some rule key prefixes is replaced, whole, by the
//     replacement of the SHORTEST such key (HF takes the first common-prefix result);
//   * otherwise each character is replaced by its rule's replacement, or kept.
// Key lookups stop at a NUL byte. Every index the lookups can reach is checked when the blob is read,
// so normalizing never reads outside it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class PrecompiledNormalizer final : public Normalizer {
 public:
  // `charsmap` is the decoded blob. Throws BadInput("`what`: ...") when it is truncated, its pool is
  // not UTF-8, or its trie leads outside itself or its pool (what: `FILE: field "..."`).
  PrecompiledNormalizer(std::string charsmap, const std::string& what);
  // {"type": "Precompiled", "precompiled_charsmap": "<base64>"}.
  static std::shared_ptr<const PrecompiledNormalizer> from_json(const JsonFields& f);

  void normalize(std::string_view text, std::string& out) const override;
  nlohmann::ordered_json to_json() const override;

  // The replacement of the shortest rule key that prefixes `chunk`, if any (spm_precompiled's
  // Precompiled::transform).
  std::optional<std::string_view> transform(std::string_view chunk) const;

 private:
  void validate(const std::string& what) const;

  std::string charsmap_;        // the blob, as read (written back by to_json)
  std::vector<uint32_t> trie_;  // the double array's units
  std::string_view pool_;       // into charsmap_
  // transform() of each one-byte (ASCII) cluster, the common case.
  std::array<std::optional<std::string_view>, 128> ascii_;
};

// Standard base64 (RFC 4648 alphabet, '=' padding), strictly, as Rust's base64 STANDARD engine reads
// it; nullopt on any deviation.
std::optional<std::string> decode_base64(std::string_view text);
std::string encode_base64(std::string_view bytes);

}  // namespace bertpt::tokenizer
