#include "model/roberta.h"

#include <ATen/ATen.h>

#include "common/error.h"
#include "model/module_tree.h"
#include "model/ops.h"

namespace bertpt::model {

RobertaForMaskedLMImpl::RobertaForMaskedLMImpl(const BertConfig& config, bool init_weights)
    : MaskedLanguageModel(config) {
  if (!config.is_roberta()) {
    throw Error(Error::Kind::Internal, "RobertaForMaskedLM needs model_type roberta or xlm-roberta");
  }
  roberta = register_module("roberta", BertModel(config, /*add_pooling_layer=*/false));
  auto head = group(*this, "lm_head");
  dense = register_linear(*head, "dense", config.hidden_size, config.hidden_size);
  head_norm = register_layer_norm(*head, "layer_norm", config.hidden_size);
  if (config.tie_word_embeddings) {
    decoder_bias = head->register_parameter("bias", at::empty({config.vocab_size}));
    roberta->embeddings->sparse_word_gradient = true;  // the tied decoder supplies the dense gradient
  } else {
    // As BERT's (bert.cc): transformers 5 unties the bias with the weight, and the decoder's own is used.
    auto decoder = group(*head, "decoder");
    decoder_weight = decoder->register_parameter("weight", at::empty({config.vocab_size, config.hidden_size}));
    decoder_bias = decoder->register_parameter("bias", at::empty({config.vocab_size}));
    unused_head_bias = head->register_buffer("bias", at::zeros({config.vocab_size}));
  }
  if (init_weights) init_bert_weights(*this, config);
}

at::Tensor RobertaForMaskedLMImpl::encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                          const at::Tensor& token_type_ids) {
  return roberta->forward(input_ids, attention_mask, token_type_ids);
}

at::Tensor RobertaForMaskedLMImpl::predict(const at::Tensor& hidden) {
  at::Tensor t = ops::activation(ops::linear(hidden, dense.weight, dense.bias), "gelu");
  t = ops::layer_norm(t, head_norm.weight, head_norm.bias, config_.layer_norm_eps);
  return ops::linear(t, decoder_weight.defined() ? decoder_weight : roberta->embeddings->word_embeddings, decoder_bias);
}

void RobertaForMaskedLMImpl::set_attention_kernel(AttentionKernel kernel) { roberta->set_attention_kernel(kernel); }

// ---- RobertaForSequenceClassification, RobertaForTokenClassification

RobertaClassifierImpl::RobertaClassifierImpl(const BertConfig& config, int64_t num_labels, bool per_token,
                                             bool init_weights)
    : Classifier(config, num_labels, per_token) {
  if (!config.is_roberta()) {
    throw Error(Error::Kind::Internal, "RobertaClassifier needs model_type roberta or xlm-roberta");
  }
  if (num_labels <= 0) throw BadInput("num_labels must be positive, got " + std::to_string(num_labels));
  roberta = register_module("roberta", BertModel(config, /*add_pooling_layer=*/false));
  if (per_token) {
    classifier = register_linear(*this, "classifier", config.hidden_size, num_labels);
  } else {
    auto head = group(*this, "classifier");
    dense = register_linear(*head, "dense", config.hidden_size, config.hidden_size);
    out_proj = register_linear(*head, "out_proj", config.hidden_size, num_labels);
  }
  classifier_dropout_ = classifier_dropout_of(config);
  if (init_weights) init_bert_weights(*this, config);
}

at::Tensor RobertaClassifierImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                          const at::Tensor& token_type_ids) {
  const bool train = is_training();
  at::Tensor hidden = roberta->forward(input_ids, attention_mask, token_type_ids);  // [B, T, H]
  if (per_token_) {
    return ops::linear(ops::dropout(hidden, classifier_dropout_, train), classifier.weight, classifier.bias);
  }
  // RobertaClassificationHead: dropout before dense, and again before out_proj.
  at::Tensor x = ops::dropout(hidden.select(1, 0), classifier_dropout_, train);  // [B, H]
  x = at::tanh(ops::linear(x, dense.weight, dense.bias));
  return ops::linear(ops::dropout(x, classifier_dropout_, train), out_proj.weight, out_proj.bias);
}

}  // namespace bertpt::model
