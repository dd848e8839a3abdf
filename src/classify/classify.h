// Shared by `bertpt finetune` and `bertpt predict`: encoded classification examples -> padded
// batches -> a sequence classifier's logits (BERT or ModernBERT).
//
// A batch is padded to its longest example (dynamic padding, like transformers'
// DataCollatorWithPadding), so short texts cost little: input_ids with the pad id, token_type_ids
// 0 and attention_mask 0 on the padding.
#pragma once

#include <cstdint>
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

// Logits of `encoded[indices[i]]` as a [indices.size(), num_labels] fp32 CPU tensor, in eval mode
// without gradients (the model's train/eval mode is restored). Examples are sorted by length
// inside the call so that each batch pads little; rows come back in the order of `indices`.
at::Tensor classify(model::SequenceClassifier& model, const std::vector<classify::EncodedExample>& encoded,
                    const std::vector<size_t>& indices, const ClassifyOptions& options);

}  // namespace bertpt::classify
