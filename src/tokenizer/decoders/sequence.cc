#include "tokenizer/decoders/sequence.h"

namespace bertpt::tokenizer {

std::shared_ptr<const DecoderSequence> DecoderSequence::from_json(const JsonFields& f) {
  const JsonValue list = f.value("decoders");
  std::vector<DecoderPtr> steps;
  for (size_t i = 0; i < list.array().size(); ++i) steps.push_back(read_decoder(list.element(i)));
  return std::make_shared<const DecoderSequence>(std::move(steps));
}

nlohmann::ordered_json DecoderSequence::to_json() const {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const DecoderPtr& step : steps_) steps.push_back(step->to_json());
  return {{"type", "Sequence"}, {"decoders", std::move(steps)}};
}

}  // namespace bertpt::tokenizer
