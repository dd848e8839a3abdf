// `bertpt fill-mask`: the top-k tokens for each [MASK] of a text, with their probabilities, as
// transformers' pipeline("fill-mask") reports them. Works on any Hugging Face BERT MaskedLM
// (or ModernBERT ModernBertForMaskedLM) checkpoint in safetensors whose tokenizer files are in the same (or a given)
// directory. No LibTorch in this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bertpt::mlm {

struct FillMaskPrediction {
  int64_t token = 0;      // id
  std::string token_str;  // decode([id])
  double score = 0;       // softmax probability
  std::string sequence;   // the text with this token in place of the [MASK], decoded as transformers' fill-mask
                          // pipeline does (special tokens skipped only when the text has one mask)
};

struct FillMaskResult {
  std::string text;
  std::vector<int64_t> mask_positions;                       // token positions of the [MASK]s
  std::vector<std::vector<FillMaskPrediction>> predictions;  // per [MASK], best first
  std::vector<float> logits;  // [T, V] row-major: every position's logits (transformers' model(...).logits[0]),
                              // only when run() was asked for them
  int64_t vocab_size = 0;     // V
};

class FillMasker {
 public:
  // `tokenizer_dir` empty: the model directory. BadInput when the checkpoint or tokenizer is missing,
  // or their vocabularies differ.
  FillMasker(const std::string& model_dir, const std::string& tokenizer_dir, const std::string& device);
  ~FillMasker();
  // BadInput when `text` has no [MASK] token or is longer than max_position_embeddings.
  // `with_logits`: also fill FillMaskResult::logits (a [T, V] copy; fill-mask --save-logits).
  FillMaskResult run(const std::string& text, int top_k, bool with_logits = false) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bertpt::mlm
