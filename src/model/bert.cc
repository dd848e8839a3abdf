#include "model/bert.h"

#include <cmath>
#include <string>
#include <unordered_set>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "model/module_tree.h"
#include "model/ops.h"
#include "model/torch_compat.h"

namespace bertpt::model {

namespace {

using torch::nn::Module;

// Values are set by init_bert_weights (or a checkpoint).
LinearParams add_linear(Module& parent, const std::string& name, int64_t in, int64_t out) {
  return register_linear(parent, name, in, out);
}

LayerNormParams add_layer_norm(Module& parent, const std::string& name, int64_t h) {
  return register_layer_norm(parent, name, h);
}

// Every GEMM with a weight goes through ops::linear (bf16 under autocast, contiguous fp32 weight
// gradients; see ops.h for why not at::linear).
at::Tensor linear(const at::Tensor& x, const LinearParams& p) { return ops::linear(x, p.weight, p.bias); }

at::Tensor apply_layer_norm(const at::Tensor& x, const LayerNormParams& p, double eps) {
  return ops::layer_norm(x, p.weight, p.bias, eps);
}

using ops::activation;

at::Tensor maybe_dropout(const at::Tensor& x, double p, bool training) { return ops::dropout(x, p, training); }

}  // namespace

LinearParams register_linear(Module& parent, const std::string& name, int64_t in, int64_t out) {
  auto m = group(parent, name);
  LinearParams p;
  p.weight = m->register_parameter("weight", at::empty({out, in}));
  p.bias = m->register_parameter("bias", at::empty({out}));
  return p;
}

LayerNormParams register_layer_norm(Module& parent, const std::string& name, int64_t h) {
  auto m = group(parent, name);
  LayerNormParams p;
  p.weight = m->register_parameter("weight", at::empty({h}));
  p.bias = m->register_parameter("bias", at::empty({h}));
  return p;
}

at::Tensor position_ids_from_input_ids(const at::Tensor& input_ids, int64_t padding_idx) {
  at::Tensor mask = input_ids.ne(padding_idx).to(at::kLong);  // [B, T]
  return mask.cumsum(1).mul_(mask).add_(padding_idx);         // [B, T]
}

// ---- embeddings

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertConfig& config) : config_(config) {
  const int64_t H = config.hidden_size;
  word_embeddings = group(*this, "word_embeddings")->register_parameter("weight", at::empty({config.vocab_size, H}));
  position_embeddings =
      group(*this, "position_embeddings")->register_parameter("weight", at::empty({config.max_position_embeddings, H}));
  token_type_embeddings =
      group(*this, "token_type_embeddings")->register_parameter("weight", at::empty({config.type_vocab_size, H}));
  layer_norm = add_layer_norm(*this, "LayerNorm", H);
}

at::Tensor BertEmbeddingsImpl::forward(const at::Tensor& input_ids, const at::Tensor& token_type_ids) {
  const int64_t T = input_ids.size(1);
  // padding_idx keeps the [PAD] row's gradient at zero, like nn.Embedding(padding_idx=pad).
  const bool sparse = sparse_word_gradient && input_ids.device().is_cpu();
  at::Tensor x = at::embedding(word_embeddings, input_ids, config_.pad_token_id, /*scale_grad_by_freq=*/false,
                               sparse);  // [B, T, H]
  if (config_.is_roberta()) {
    at::Tensor positions = position_ids_from_input_ids(input_ids, config_.pad_token_id);  // [B, T]
    x = x + at::embedding(position_embeddings, positions, config_.pad_token_id);          // + [B, T, H]
  } else {
    at::Tensor positions = at::arange(T, input_ids.options().dtype(at::kLong));  // [T]
    x = x + at::embedding(position_embeddings, positions);                       // + [T, H]
  }
  if (token_type_ids.defined()) {
    x = x + at::embedding(token_type_embeddings, token_type_ids);  // + [B, T, H]
  } else {
    x = x + token_type_embeddings.select(0, 0);  // all segment 0: + [H]
  }
  x = apply_layer_norm(x, layer_norm, config_.layer_norm_eps);
  return maybe_dropout(x, config_.hidden_dropout_prob, is_training());
}

// ---- encoder layer

BertLayerImpl::BertLayerImpl(const BertConfig& config) : config_(config) {
  const int64_t H = config.hidden_size, I = config.intermediate_size;
  auto attention = group(*this, "attention");
  auto self = group(*attention, "self");
  query = add_linear(*self, "query", H, H);
  key = add_linear(*self, "key", H, H);
  value = add_linear(*self, "value", H, H);
  auto attention_out = group(*attention, "output");
  attention_output = add_linear(*attention_out, "dense", H, H);
  attention_norm = add_layer_norm(*attention_out, "LayerNorm", H);
  intermediate = add_linear(*group(*this, "intermediate"), "dense", H, I);
  auto out = group(*this, "output");
  output = add_linear(*out, "dense", I, H);
  output_norm = add_layer_norm(*out, "LayerNorm", H);
}

at::Tensor BertLayerImpl::attention(const at::Tensor& x, const at::Tensor& additive_mask) {
  const int64_t B = x.size(0), T = x.size(1), H = config_.hidden_size;
  const int64_t nh = config_.num_attention_heads, hd = config_.head_dim();
  const double p = is_training() ? config_.attention_probs_dropout_prob : 0.0;

  // One [3H, H] GEMM instead of three [H, H] ones: the checkpoint keeps HF's separate
  // query/key/value tensors, concatenated here (a 3·H² copy, small next to the B·T·3H² GEMM).
  at::Tensor w = at::cat({query.weight, key.weight, value.weight}, 0);  // [3H, H]
  at::Tensor b = at::cat({query.bias, key.bias, value.bias}, 0);        // [3H]
  at::Tensor qkv = ops::linear(x, w, b)                                 // [B, T, 3H]
                       .view({B, T, 3, nh, hd})
                       .permute({2, 0, 3, 1, 4});  // [3, B, nh, T, hd]
  at::Tensor q = qkv[0], k = qkv[1], v = qkv[2];   // [B, nh, T, hd] each (strided views)

  at::Tensor ctx = attend(q, k, v, additive_mask, p, attention_kernel);  // [B, nh, T, hd]
  return ctx.transpose(1, 2).reshape({B, T, H});
}

at::Tensor BertLayerImpl::forward(const at::Tensor& x, const at::Tensor& additive_mask) {
  const double eps = config_.layer_norm_eps, p = config_.hidden_dropout_prob;
  const bool train = is_training();
  // Under autocast the GEMM outputs are bf16; adding the fp32 residual promotes back to fp32, so
  // the residual stream and LayerNorm stay fp32.
  at::Tensor a = maybe_dropout(linear(attention(x, additive_mask), attention_output), p, train);
  at::Tensor h = apply_layer_norm(a + x, attention_norm, eps);             // [B, T, H]
  at::Tensor i = activation(linear(h, intermediate), config_.hidden_act);  // [B, T, I]
  at::Tensor o = maybe_dropout(linear(i, output), p, train);               // [B, T, H]
  return apply_layer_norm(o + h, output_norm, eps);
}

// ---- BertModel

BertModelImpl::BertModelImpl(const BertConfig& config, bool add_pooling_layer) : config_(config) {
  config.validate();
  embeddings = register_module("embeddings", BertEmbeddings(config));
  auto layer_group = group(*group(*this, "encoder"), "layer");
  for (int64_t i = 0; i < config.num_hidden_layers; ++i) {
    layers.push_back(layer_group->register_module(std::to_string(i), BertLayer(config)));
  }
  if (add_pooling_layer) pooler = add_linear(*group(*this, "pooler"), "dense", config.hidden_size, config.hidden_size);
}

at::Tensor BertModelImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                  const at::Tensor& token_type_ids) {
  if (input_ids.dim() != 2) {
    throw BadInput("input_ids must be [batch, sequence], got " + std::to_string(input_ids.dim()) + " dimensions");
  }
  if (input_ids.size(1) > config_.max_sequence_length()) {
    const std::string positions = std::to_string(config_.max_position_embeddings);
    throw BadInput("sequence length " + std::to_string(input_ids.size(1)) +
                       (config_.is_roberta() ? " exceeds the " + std::to_string(config_.max_sequence_length()) +
                                                   " tokens of the model's max_position_embeddings (" + positions +
                                                   ", counted from pad_token_id + 1)"
                                             : " exceeds the model's max_position_embeddings (" + positions + ")"),
                   "use a shorter --seq-len, or a model config with more positions");
  }
  at::Tensor mask;  // [B, 1, 1, T] or undefined
  if (attention_mask.defined()) mask = additive_attention_mask(attention_mask);
  at::Tensor x = embeddings->forward(input_ids, token_type_ids);  // [B, T, H]
  for (auto& layer : layers) x = layer->forward(x, mask);
  return x;
}

at::Tensor BertModelImpl::pool(const at::Tensor& hidden) {
  if (!pooler.weight.defined()) throw Error(Error::Kind::Internal, "BertModel::pool without a pooling layer");
  return at::tanh(linear(hidden.select(1, 0), pooler));  // [B, H]
}

void BertModelImpl::set_attention_kernel(AttentionKernel kernel) {
  for (auto& layer : layers) layer->attention_kernel = kernel;
}

// ---- BertForMaskedLM

BertForMaskedLMImpl::BertForMaskedLMImpl(const BertConfig& config, bool init_weights) : MaskedLanguageModel(config) {
  bert = register_module("bert", BertModel(config, /*add_pooling_layer=*/false));
  auto predictions = group(*group(*this, "cls"), "predictions");
  auto t = group(*predictions, "transform");
  transform = add_linear(*t, "dense", config.hidden_size, config.hidden_size);
  transform_norm = add_layer_norm(*t, "LayerNorm", config.hidden_size);
  if (config.tie_word_embeddings) {
    decoder_bias = predictions->register_parameter("bias", at::empty({config.vocab_size}));
    bert->embeddings->sparse_word_gradient = true;  // the tied decoder supplies the dense gradient
  } else {
    // transformers 5 unties the bias with the weight: the decoder's own Linear bias is the one used.
    auto decoder = group(*predictions, "decoder");
    decoder_weight = decoder->register_parameter("weight", at::empty({config.vocab_size, config.hidden_size}));
    decoder_bias = decoder->register_parameter("bias", at::empty({config.vocab_size}));
  }
  if (init_weights) init_bert_weights(*this, config);
}

at::Tensor BertForMaskedLMImpl::predict(const at::Tensor& hidden) {
  at::Tensor t = activation(linear(hidden, transform), config_.hidden_act);
  t = apply_layer_norm(t, transform_norm, config_.layer_norm_eps);
  // logits = t · Wᵀ + b, W the word embeddings (tied) or the decoder's own weight.
  return ops::linear(t, decoder_weight.defined() ? decoder_weight : bert->embeddings->word_embeddings, decoder_bias);
}

at::Tensor BertForMaskedLMImpl::encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                       const at::Tensor& token_type_ids) {
  return bert->forward(input_ids, attention_mask, token_type_ids);
}

void BertForMaskedLMImpl::set_attention_kernel(AttentionKernel kernel) { bert->set_attention_kernel(kernel); }

// ---- BertForSequenceClassification, BertForTokenClassification

BertClassifierImpl::BertClassifierImpl(const BertConfig& config, int64_t num_labels, bool per_token, bool init_weights)
    : Classifier(config, num_labels, per_token) {
  if (num_labels <= 0) throw BadInput("num_labels must be positive, got " + std::to_string(num_labels));
  bert = register_module("bert", BertModel(config, /*add_pooling_layer=*/!per_token));
  classifier = add_linear(*this, "classifier", config.hidden_size, num_labels);
  classifier_dropout_ = classifier_dropout_of(config);
  if (init_weights) init_bert_weights(*this, config);
}

at::Tensor BertClassifierImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                       const at::Tensor& token_type_ids) {
  at::Tensor hidden = bert->forward(input_ids, attention_mask, token_type_ids);  // [B, T, H]
  if (!per_token_) hidden = bert->pool(hidden);                                  // [B, H]
  return linear(maybe_dropout(hidden, classifier_dropout_, is_training()), classifier);
}

std::vector<std::string> BertClassifierImpl::head_prefixes() const {
  if (per_token_) return {"classifier."};
  return {"classifier.", "bert.pooler."};
}

// ---- helpers

double classifier_dropout_of(const BertConfig& config) {
  auto it = config.extra.find("classifier_dropout");
  if (it == config.extra.end() || it->second == "null") return config.hidden_dropout_prob;
  try {
    return std::stod(it->second);
  } catch (const std::exception&) {
    throw BadInput("config: classifier_dropout must be a number or null, got " + it->second);
  }
}

void init_bert_weights(torch::nn::Module& model, const BertConfig& config) {
  at::NoGradGuard no_grad;
  for (auto& item : model.named_parameters(/*recurse=*/true)) {
    const std::string& name = item.key();
    at::Tensor& p = item.value();
    if (name.ends_with("LayerNorm.weight") || name.ends_with("layer_norm.weight")) {
      p.fill_(1.0);
    } else if (name.ends_with("bias")) {
      p.zero_();
    } else {
      p.normal_(0.0, config.initializer_range);
      // nn.Embedding(padding_idx=pad): RoBERTa's position table has one too.
      const bool padded = name.ends_with("word_embeddings.weight") ||
                          (config.is_roberta() && name.ends_with("position_embeddings.weight"));
      if (padded && config.pad_token_id >= 0) p[config.pad_token_id].zero_();
    }
  }
}

}  // namespace bertpt::model
