// The ByteLevel pre-tokenizer of Hugging Face tokenizers (GPT-2, RoBERTa, ModernBERT): each word gets
// a leading space when `add_prefix_space` and it does not already start with ' ', is split by the
// GPT-2 regex when `use_regex`, and every byte of every piece is then written as one printable
// character of GPT-2's bytes_char map (' ' -> 'Ġ', '\n' -> 'Ċ', printable ASCII unchanged), so the
// model sees 256 symbols and never an unknown byte.
//
// The regex, `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+` under
// Oniguruma, is run by hand (gpt2_split below): the three classes it tests are disjoint and cover,
// with "other", every code point, so a leftmost-first match is decided by the class of the first one
// or two characters. The classes are HF's Oniguruma's own (char_classes.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {

// The settings HF's ByteLevel pre-tokenizer, decoder and post-processor share, as they read and
// write them ({"type": "ByteLevel", "add_prefix_space", "trim_offsets", "use_regex"}).
nlohmann::ordered_json byte_level_json(bool add_prefix_space, bool trim_offsets, bool use_regex);
struct ByteLevelFlags {
  bool add_prefix_space, trim_offsets, use_regex;
};
ByteLevelFlags read_byte_level_flags(const JsonFields& f);

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool trim_offsets, bool use_regex)
      : add_prefix_space_(add_prefix_space), trim_offsets_(trim_offsets), use_regex_(use_regex) {}
  // {"type": "ByteLevel", "add_prefix_space": b, "trim_offsets": b, "use_regex": b}; the first two
  // are required and use_regex defaults to true, as HF reads them.
  static std::shared_ptr<const ByteLevel> from_json(const JsonFields& f);

  void pre_tokenize(Words& words) const override;
  nlohmann::ordered_json to_json() const override;
  // "Ġ" (U+0120), the byte map's character for a space, which starts every word after the first.
  std::string word_start_marker() const override { return "\xC4\xA0"; }

  bool add_prefix_space() const { return add_prefix_space_; }
  // Only the offsets of HF's encodings depend on it (bertpt keeps no offsets): read and written back.
  bool trim_offsets() const { return trim_offsets_; }
  bool use_regex() const { return use_regex_; }

  // The code point GPT-2's bytes_char gives byte `b`.
  static uint32_t byte_to_char(uint8_t b);
  // The 256 characters of bytes_char as UTF-8, in byte order (the BPE trainer's initial alphabet).
  static const std::array<std::string, 256>& alphabet();
  // Appends the byte-level form of `bytes` (any bytes) to `out`.
  static void append_byte_level(std::string_view bytes, std::string& out);
  // Appends the bytes a byte-level token stands for; false (and `out` unchanged) when some character
  // of `token` is not one of the 256.
  static bool append_token_bytes(std::string_view token, std::string& out);

 private:
  bool add_prefix_space_;
  bool trim_offsets_;
  bool use_regex_;
};

// The pieces the GPT-2 regex cuts valid UTF-8 `text` into, as [begin, end) byte ranges (they tile it).
void gpt2_split(std::string_view text, std::vector<std::pair<uint32_t, uint32_t>>& pieces);

}  // namespace bertpt::tokenizer
