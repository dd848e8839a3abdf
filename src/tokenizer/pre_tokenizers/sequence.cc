#include "tokenizer/pre_tokenizers/sequence.h"

namespace bertpt::tokenizer {

std::shared_ptr<const PreTokenizerSequence> PreTokenizerSequence::from_json(const JsonFields& f) {
  const JsonValue list = f.value("pretokenizers");
  std::vector<PreTokenizerPtr> steps;
  for (size_t i = 0; i < list.array().size(); ++i) steps.push_back(read_pre_tokenizer(list.element(i)));
  return std::make_shared<const PreTokenizerSequence>(std::move(steps));
}

nlohmann::ordered_json PreTokenizerSequence::to_json() const {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const PreTokenizerPtr& step : steps_) steps.push_back(step->to_json());
  return {{"type", "Sequence"}, {"pretokenizers", std::move(steps)}};
}

}  // namespace bertpt::tokenizer
