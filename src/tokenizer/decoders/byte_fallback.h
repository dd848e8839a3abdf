// HF's ByteFallback decoder: each run of consecutive byte
// tokens "<0xNN>" (exactly 6 bytes, two hex digits of either case) becomes one token, the run's bytes,
// when they are valid UTF-8, else one U+FFFD per byte; other tokens pass through.
#pragma once

#include "tokenizer/decoders/decoder.h"

namespace bertpt::tokenizer {

class ByteFallbackDecoder final : public Decoder {
 public:
  static std::shared_ptr<const ByteFallbackDecoder> from_json(const JsonFields&) {
    return std::make_shared<const ByteFallbackDecoder>();
  }
  void decode_chain(std::vector<std::string>& tokens) const override;
  nlohmann::ordered_json to_json() const override { return {{"type", "ByteFallback"}}; }
};

}  // namespace bertpt::tokenizer
