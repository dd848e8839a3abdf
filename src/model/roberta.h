// RoBERTa and XLM-R as in transformers' modeling_roberta.py / modeling_xlm_roberta.py (the two are the
// same network; XLMRobertaForMaskedLM differs only in its config's model_type), on BertConfig with
// model_type "roberta" or "xlm-roberta" (docs/hf-compat.md, "RoBERTa and XLM-R"):
//
//   the encoder is BERT's (bert.h: BertModel, post-LN, no pooler for MaskedLM), registered as
//   "roberta", with position ids counted from pad_token_id + 1 (position_ids_from_input_ids);
//   the MLM head is RobertaLMHead: decoder(layer_norm(gelu(dense(x)))), the decoder tied to the
//   word embeddings and its bias "lm_head.bias".
//
// Parameter names are transformers':
//
//   roberta.embeddings.{word,position,token_type}_embeddings.weight, roberta.embeddings.LayerNorm.*
//   roberta.encoder.layer.{i}.*                       (as BERT's bert.encoder.layer.{i}.*)
//   lm_head.dense.{weight,bias}, lm_head.layer_norm.{weight,bias}, lm_head.bias
//   lm_head.decoder.{weight,bias}                     only when tie_word_embeddings is false; then
//                                                     lm_head.bias is a buffer the forward never reads
//
// The classifiers (RobertaClassifierImpl) are transformers' RobertaForSequenceClassification and
// RobertaForTokenClassification (XLMRoberta... the same): the encoder "roberta.*" without a pooler, and
//
//   sequence: RobertaClassificationHead on the first token (<s>):
//             out_proj(dropout(tanh(dense(dropout(hidden[:, 0])))))
//             classifier.dense.{weight,bias} [H, H], classifier.out_proj.{weight,bias} [num_labels, H]
//   token:    classifier(dropout(hidden)) per token, classifier.{weight,bias} [num_labels, H]
//
// the dropout transformers' classifier_dropout (classifier_dropout_of).
//
// Shape legend: B batch, T sequence length, H hidden size, V vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/bert.h"
#include "model/masked_lm.h"

namespace bertpt::model {

class RobertaForMaskedLMImpl : public MaskedLanguageModel {
 public:
  // `init_weights == false` leaves the parameters uninitialised, for a model about to be loaded.
  explicit RobertaForMaskedLMImpl(const BertConfig& config, bool init_weights = true);

  at::Tensor encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                    const at::Tensor& token_type_ids) override;
  // dense, gelu (exact, whatever hidden_act says: RobertaLMHead calls gelu), layer_norm, decoder.
  at::Tensor predict(const at::Tensor& hidden) override;
  void set_attention_kernel(AttentionKernel kernel) override;

  BertModel roberta{nullptr};
  LinearParams dense;         // [H, H] ("lm_head.dense")
  LayerNormParams head_norm;  // "lm_head.layer_norm"
  at::Tensor decoder_bias;    // [V] ("lm_head.bias"; "lm_head.decoder.bias" when untied)
  at::Tensor decoder_weight;  // [V, H] ("lm_head.decoder.weight") when untied; else undefined (tied
                              // to roberta.embeddings.word_embeddings)
  // [V] "lm_head.bias" of an untied model: transformers 5 keeps it beside lm_head.decoder.bias and never
  // uses it. A buffer, not a parameter: loaded and saved as it was, so every tensor round-trips.
  at::Tensor unused_head_bias;
};
TORCH_MODULE(RobertaForMaskedLM);

// RobertaForSequenceClassification or, per_token, RobertaForTokenClassification (see the top).
class RobertaClassifierImpl : public Classifier {
 public:
  RobertaClassifierImpl(const BertConfig& config, int64_t num_labels, bool per_token, bool init_weights = true);
  at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {},
                     const at::Tensor& token_type_ids = {}) override;
  // "classifier.": all a MaskedLM checkpoint lacks (its lm_head.* is left unused).
  std::vector<std::string> head_prefixes() const override { return {"classifier."}; }

  BertModel roberta{nullptr};
  LinearParams dense;       // [H, H] ("classifier.dense"); sequence classification only
  LinearParams out_proj;    // [num_labels, H] ("classifier.out_proj"); sequence classification only
  LinearParams classifier;  // [num_labels, H] ("classifier"); token classification only

 private:
  double classifier_dropout_ = 0.1;
};

}  // namespace bertpt::model
