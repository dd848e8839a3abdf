// HF's Metaspace decoder (the decoding side of the Metaspace component): every replacement character
// becomes ' ', except in the first token, where each one is dropped, unless prepend_scheme is "never"
// (HF drops them all there, not only the leading one).
#pragma once

#include "tokenizer/decoders/decoder.h"
#include "tokenizer/pre_tokenizers/metaspace.h"

namespace bertpt::tokenizer {

class MetaspaceDecoder final : public Decoder {
 public:
  explicit MetaspaceDecoder(MetaspaceOptions options) : options_(std::move(options)) {}
  // The same object as the Metaspace pre-tokenizer's (pre_tokenizers/metaspace.h).
  static std::shared_ptr<const MetaspaceDecoder> from_json(const JsonFields& f) {
    return std::make_shared<const MetaspaceDecoder>(MetaspaceOptions::from_json(f));
  }
  void decode_chain(std::vector<std::string>& tokens) const override;
  nlohmann::ordered_json to_json() const override { return options_.to_json(); }

 private:
  MetaspaceOptions options_;
};

}  // namespace bertpt::tokenizer
