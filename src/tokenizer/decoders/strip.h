// HF's Strip decoder: removes up to `start` leading and up to `stop`
// trailing `content` characters from each token (Llama: one leading ' ').
#pragma once

#include <string>

#include "tokenizer/decoders/decoder.h"

namespace bertpt::tokenizer {

class StripDecoder final : public Decoder {
 public:
  StripDecoder(std::string content, size_t start, size_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  // {"type": "Strip", "content": one character, "start": n, "stop": n}, all required.
  static std::shared_ptr<const StripDecoder> from_json(const JsonFields& f);
  // HF indexes past a token's start when `stop` exceeds its characters, or when the two cuts cross,
  // and panics; here such a token strips to what the cuts leave (empty when they cross).
  void decode_chain(std::vector<std::string>& tokens) const override;
  nlohmann::ordered_json to_json() const override {
    return {{"type", "Strip"}, {"content", content_}, {"start", start_}, {"stop", stop_}};
  }

 private:
  std::string content_;  // one character
  size_t start_, stop_;
};

}  // namespace bertpt::tokenizer
