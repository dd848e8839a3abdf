// HF's Sequence pre-tokenizer: its pre-tokenizers applied in turn, each to the words of the last.
#pragma once

#include <vector>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace bertpt::tokenizer {

class PreTokenizerSequence final : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(std::vector<PreTokenizerPtr> steps) : steps_(std::move(steps)) {}
  static std::shared_ptr<const PreTokenizerSequence> from_json(const JsonFields& f);
  void pre_tokenize(Words& words) const override {
    for (const PreTokenizerPtr& step : steps_) step->pre_tokenize(words);
  }
  nlohmann::ordered_json to_json() const override;
  // The last step's marker that is not "".
  std::string word_start_marker() const override {
    std::string marker;
    for (const PreTokenizerPtr& step : steps_) {
      if (std::string m = step->word_start_marker(); !m.empty()) marker = std::move(m);
    }
    return marker;
  }
  const std::vector<PreTokenizerPtr>& steps() const { return steps_; }

 private:
  std::vector<PreTokenizerPtr> steps_;
};

}  // namespace bertpt::tokenizer
