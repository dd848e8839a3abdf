// The ByteLevel decoder of Hugging Face tokenizers (decoders/byte_level.rs): every token whose
// characters are all of GPT-2's 256 byte characters becomes those bytes (any other token is kept as
// its own UTF-8), the bytes of all tokens are joined, and the result is read as UTF-8 the way Rust's
// String::from_utf8_lossy reads it (each maximal invalid subpart -> one U+FFFD). The tokens become one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/decoders/decoder.h"

namespace bertpt::tokenizer {

class ByteLevelDecoder final : public Decoder {
 public:
  // HF's decoder is its ByteLevel struct, so the same three options are read and written back
  // (none changes decoding).
  ByteLevelDecoder(bool add_prefix_space, bool trim_offsets, bool use_regex)
      : add_prefix_space_(add_prefix_space), trim_offsets_(trim_offsets), use_regex_(use_regex) {}
  static std::shared_ptr<const ByteLevelDecoder> from_json(const JsonFields& f);

  void decode_chain(std::vector<std::string>& tokens) const override;
  nlohmann::ordered_json to_json() const override;

 private:
  bool add_prefix_space_;
  bool trim_offsets_;
  bool use_regex_;
};

// Appends `bytes` to `out` as Rust's String::from_utf8_lossy reads them: valid UTF-8 unchanged, each
// maximal prefix of a would-be character that cannot be completed (or a byte no character starts
// with) replaced by U+FFFD.
void append_utf8_lossy(std::string_view bytes, std::string& out);

}  // namespace bertpt::tokenizer
