// HF's Fuse decoder: all tokens joined into one.
#pragma once

#include "tokenizer/decoders/decoder.h"

namespace bertpt::tokenizer {

class FuseDecoder final : public Decoder {
 public:
  static std::shared_ptr<const FuseDecoder> from_json(const JsonFields&) {
    return std::make_shared<const FuseDecoder>();
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string joined;
    for (const std::string& t : tokens) joined += t;
    tokens.assign(1, std::move(joined));
  }
  nlohmann::ordered_json to_json() const override { return {{"type", "Fuse"}}; }
};

}  // namespace bertpt::tokenizer
