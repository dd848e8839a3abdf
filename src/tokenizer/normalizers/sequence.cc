#include "tokenizer/normalizers/sequence.h"

#include <string>

namespace bertpt::tokenizer {

std::shared_ptr<const NormalizerSequence> NormalizerSequence::from_json(const JsonFields& f) {
  const JsonValue list = f.value("normalizers");
  std::vector<NormalizerPtr> steps;
  for (size_t i = 0; i < list.array().size(); ++i) steps.push_back(read_normalizer(list.element(i)));
  return std::make_shared<const NormalizerSequence>(std::move(steps));
}

nlohmann::ordered_json NormalizerSequence::to_json() const {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const NormalizerPtr& step : steps_) steps.push_back(step->to_json());
  return {{"type", "Sequence"}, {"normalizers", std::move(steps)}};
}

bool NormalizerSequence::normalize_keeping_origin(std::string_view text, std::string& out) const {
  if (steps_.empty()) {
    out.append(text);
    return true;
  }
  bool kept = true;
  std::string current(text), next;
  for (size_t i = 0; i + 1 < steps_.size(); ++i) {
    next.clear();
    kept = steps_[i]->normalize_keeping_origin(current, next) && kept;
    current.swap(next);
  }
  return steps_.back()->normalize_keeping_origin(current, out) && kept;
}

void NormalizerSequence::normalize(std::string_view text, std::string& out) const {
  if (steps_.empty()) {
    out.append(text);
    return;
  }
  std::string current(text), next;
  for (size_t i = 0; i + 1 < steps_.size(); ++i) {
    next.clear();
    steps_[i]->normalize(current, next);
    current.swap(next);
  }
  steps_.back()->normalize(current, out);
}

}  // namespace bertpt::tokenizer
