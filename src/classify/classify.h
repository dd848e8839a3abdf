// Shared by `bertpt finetune` and `bertpt predict`: encoded classification examples -> padded
// batches -> a sequence classifier's logits (BERT, ModernBERT, RoBERTa or XLM-R).
//
// A batch is padded to its longest example (dynamic padding, like transformers'
// DataCollatorWithPadding), so short texts cost little: input_ids with the pad id, token_type_ids
// 0 and attention_mask 0 on the padding.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "classify/encode.h"
#include "model/masked_lm.h"

namespace bertpt::classify {

struct ClassifierBatch {
  at::Tensor input_ids;       // [b, t] int64, CPU
  at::Tensor token_type_ids;  // [b, t] int64
  at::Tensor attention_mask;  // [b, t] int64 (1 = token); undefined when no example is padded
};

// The examples `encoded[indices[i]]`, padded with `pad_id`.
ClassifierBatch make_classifier_batch(const std::vector<classify::EncodedExample>& encoded,
                                      const std::vector<size_t>& indices, int64_t pad_id);

struct ClassifyOptions {
  int64_t batch_size = 64;
  std::string device = "cpu";  // normalized device string
  bool bf16 = false;
  int64_t pad_id = 0;
};

// Calls take(i, logits) with the logits of encoded[indices[i]], in eval mode without gradients (the
// model's train/eval mode is restored): [num_labels] fp32 on the CPU, or for a per-token model
// [t, num_labels] with a row per id of the example. Examples are sorted by length inside the call so
// that each batch pads little; `take` sees them in that order.
void classify_each(model::Classifier& model, const std::vector<classify::EncodedExample>& encoded,
                   const std::vector<size_t>& indices, const ClassifyOptions& options,
                   const std::function<void(size_t i, const at::Tensor& logits)>& take);

// The logits of a sequence classifier as one [indices.size(), num_labels] tensor, rows in the order
// of `indices` (classify_each).
at::Tensor classify(model::SequenceClassifier& model, const std::vector<classify::EncodedExample>& encoded,
                    const std::vector<size_t>& indices, const ClassifyOptions& options);

}  // namespace bertpt::classify
