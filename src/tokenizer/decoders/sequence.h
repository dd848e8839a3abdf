// HF's Sequence decoder: its decoders applied in turn to the
// token list.
#pragma once

#include <vector>

#include "tokenizer/decoders/decoder.h"

namespace bertpt::tokenizer {

class DecoderSequence final : public Decoder {
 public:
  explicit DecoderSequence(std::vector<DecoderPtr> steps) : steps_(std::move(steps)) {}
  // {"type": "Sequence", "decoders": [...]} ("decoders" required).
  static std::shared_ptr<const DecoderSequence> from_json(const JsonFields& f);
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const DecoderPtr& step : steps_) step->decode_chain(tokens);
  }
  nlohmann::ordered_json to_json() const override;
  const std::vector<DecoderPtr>& steps() const { return steps_; }

 private:
  std::vector<DecoderPtr> steps_;
};

}  // namespace bertpt::tokenizer
