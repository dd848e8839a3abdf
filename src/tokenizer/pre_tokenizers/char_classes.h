// The character classes Hugging Face's pre-tokenizers test, per code point, exactly as HF's engines
// have them (generated from the pinned tokenizers by scripts/gen_pretokenizer_classes.py into
// char_classes_data.inc): Oniguruma's \p{L}, \p{N} and \s for ByteLevel's GPT-2 regex, the Rust
// regex crate's \w for Whitespace, Rust's char::is_numeric for Digits. HF's Oniguruma is Unicode 16.0
// (the system's libonig and utf8proc are older), which is why these are tables of HF's own answers.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace bertpt::tokenizer::char_classes {

enum Flag : uint8_t {
  kLetter = 1,    // Oniguruma \p{L}
  kNumber = 2,    // Oniguruma \p{N}
  kSpace = 4,     // Unicode White_Space: Oniguruma \s, Rust char::is_whitespace and regex \s alike
  kWord = 8,      // Rust regex crate \w
  kNumeric = 16,  // Rust char::is_numeric
};

// Flags of code point `cp` (0 for anything past U+10FFFF).
uint8_t lookup(uint32_t cp);

// The maximal ranges [first, last] of the code points that have `flag`, in order.
std::vector<std::pair<uint32_t, uint32_t>> ranges_with(Flag flag);

}  // namespace bertpt::tokenizer::char_classes
