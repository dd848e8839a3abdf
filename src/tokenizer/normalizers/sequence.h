// HF's Sequence normalizer: its normalizers applied in turn, each
// to the output of the last.
#pragma once

#include <vector>

#include "tokenizer/normalizers/normalizer.h"

namespace bertpt::tokenizer {

class NormalizerSequence final : public Normalizer {
 public:
  explicit NormalizerSequence(std::vector<NormalizerPtr> steps) : steps_(std::move(steps)) {}
  // {"type": "Sequence", "normalizers": [...]} ("normalizers" required).
  static std::shared_ptr<const NormalizerSequence> from_json(const JsonFields& f);
  void normalize(std::string_view text, std::string& out) const override;
  // Every step keeps the origin of its own input. (HF would keep it too where a step drops only
  // characters an earlier step put at the start, e.g. Prepend then Strip; no shipped file does that.)
  bool keeps_origin(std::string_view text) const override {
    std::string out;
    return normalize_keeping_origin(text, out);
  }
  bool normalize_keeping_origin(std::string_view text, std::string& out) const override;
  nlohmann::ordered_json to_json() const override;
  const std::vector<NormalizerPtr>& steps() const { return steps_; }

 private:
  std::vector<NormalizerPtr> steps_;
};

}  // namespace bertpt::tokenizer
