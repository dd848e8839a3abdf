// HF's Replace decoder (the decoding side of the Replace component): in each token, every match of
// the pattern becomes the content (Llama's {"String": "▁"} -> " "). Same object and matching as
// the Replace normalizer (normalizers/replace.h).
#pragma once

#include "tokenizer/decoders/decoder.h"
#include "tokenizer/normalizers/replace.h"

namespace bertpt::tokenizer {

class ReplaceDecoder final : public Decoder {
 public:
  explicit ReplaceDecoder(Replacement replacement) : replacement_(std::move(replacement)) {}
  static std::shared_ptr<const ReplaceDecoder> from_json(const JsonFields& f) {
    return std::make_shared<const ReplaceDecoder>(Replacement::from_json(f));
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string out;
    for (std::string& token : tokens) {
      out.clear();
      replacement_.apply(token, out);
      token.swap(out);
    }
  }
  nlohmann::ordered_json to_json() const override { return replacement_.to_json(); }

 private:
  Replacement replacement_;
};

}  // namespace bertpt::tokenizer
