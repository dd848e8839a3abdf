#include "model/bert.h"

#include <cmath>
#include <string>
#include <unordered_set>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "model/ops.h"
#include "model/torch_compat.h"

namespace bertpt::model {

namespace {

using torch::nn::Module;

// A child module that only groups parameters, so their names nest like HF's
// ("attention" -> "self" -> "query" -> "weight").
std::shared_ptr<Module> group(Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<Module>());
}

// Registers "<name>.weight" [out, in] and "<name>.bias" [out] under `parent`. Values are set by
// init_bert_weights (or a checkpoint).
LinearParams add_linear(Module& parent, const std::string& name, int64_t in, int64_t out) {
  auto m = group(parent, name);
  LinearParams p;
  p.weight = m->register_parameter("weight", at::empty({out, in}));
  p.bias = m->register_parameter("bias", at::empty({out}));
  return p;
}

LayerNormParams add_layer_norm(Module& parent, const std::string& name, int64_t h) {
  auto m = group(parent, name);
  LayerNormParams p;
  p.weight = m->register_parameter("weight", at::empty({h}));
  p.bias = m->register_parameter("bias", at::empty({h}));
  return p;
}

// Every GEMM with a weight goes through ops::linear (bf16 under autocast, contiguous fp32 weight
// gradients; see ops.h for why not at::linear).
at::Tensor linear(const at::Tensor& x, const LinearParams& p) { return ops::linear(x, p.weight, p.bias); }

// LayerNorm over the last dimension, in the dtype of its (fp32 master) weights. In the encoder the
// input is already fp32 (the residual stream: fp32 + bf16 promotes to fp32); in the MLM head it is
// a bf16 GEMM output under autocast, which 1.13's CPU LayerNorm cannot mix with fp32 weights.
at::Tensor apply_layer_norm(const at::Tensor& x, const LayerNormParams& p, double eps) {
  return at::layer_norm(x.to(p.weight.scalar_type()), {x.size(-1)}, p.weight, p.bias, eps, /*cudnn_enable=*/true);
}

at::Tensor activation(const at::Tensor& x, const std::string& act) {
  if (act == "gelu") return at::gelu(x);  // exact erf form, as BERT's "gelu"
  if (act == "gelu_new" || act == "gelu_pytorch_tanh") return at::gelu(x, "tanh");
  if (act == "relu") return at::relu(x);
  if (act == "silu" || act == "swish") return at::silu(x);
  throw BadInput("unsupported hidden_act '" + act + "'", "use gelu, gelu_new, gelu_pytorch_tanh, relu or silu");
}

at::Tensor maybe_dropout(const at::Tensor& x, double p, bool training) { return ops::dropout(x, p, training); }

// The dtype softmax and the loss run in: fp32 for bf16/fp16 activations (autocast), else the
// activations' own (so an fp64 model, used by the tests, stays fp64 end to end).
at::ScalarType accumulate_type(const at::Tensor& t) {
  return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

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
                               sparse);                                        // [B, T, H]
  at::Tensor positions = at::arange(T, input_ids.options().dtype(at::kLong));  // [T]
  x = x + at::embedding(position_embeddings, positions);                       // + [T, H]
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

AttentionKernel resolve_attention(AttentionKernel kernel, c10::DeviceType device_type) {
  if (kernel != AttentionKernel::Auto) return kernel;
  return torch_compat::has_fused_sdpa(device_type) ? AttentionKernel::Fused : AttentionKernel::Explicit;
}

std::string attention_kernel_name(AttentionKernel kernel, c10::DeviceType device_type) {
  return resolve_attention(kernel, device_type) == AttentionKernel::Fused ? "fused" : "explicit";
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

  at::Tensor ctx;  // [B, nh, T, hd]
  if (resolve_attention(attention_kernel, x.device().type()) == AttentionKernel::Fused) {
    ctx = torch_compat::scaled_dot_product_attention(q, k, v, additive_mask, p);
  } else {
    // Scaling q ([B, nh, T, hd]) instead of the scores ([B, nh, T, T]) is cheaper when T > hd, and
    // the multiply doubles as the copy that makes q contiguous for the batched GEMM.
    at::Tensor scores = at::matmul(q * (1.0 / std::sqrt(static_cast<double>(hd))),
                                   k.transpose(-2, -1));           // [B, nh, T, T]
    if (additive_mask.defined()) scores = scores + additive_mask;  // fp32 mask promotes bf16 scores
    // Softmax in fp32 whatever the autocast state (1.13's CPU autocast would keep it in bf16).
    at::Tensor probs = at::softmax(scores, -1, accumulate_type(scores));  // [B, nh, T, T]
    // Dropout after the cast to v's dtype (bf16 under autocast): half the bytes to mask.
    probs = maybe_dropout(probs.to(v.scalar_type()), p, p > 0.0);
    ctx = at::matmul(probs, v);
  }
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
  if (input_ids.size(1) > config_.max_position_embeddings) {
    throw BadInput("sequence length " + std::to_string(input_ids.size(1)) +
                       " exceeds the model's max_position_embeddings (" +
                       std::to_string(config_.max_position_embeddings) + ")",
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

BertForMaskedLMImpl::BertForMaskedLMImpl(const BertConfig& config, bool init_weights) : config_(config) {
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

MlmOutput BertForMaskedLMImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                       const at::Tensor& token_type_ids, const at::Tensor& labels, MlmHead head,
                                       const at::Tensor& masked_positions) {
  if (!labels.defined() || labels.sizes() != input_ids.sizes()) {
    throw BadInput("MLM labels must have the shape of input_ids");
  }
  const int64_t H = config_.hidden_size, V = config_.vocab_size;
  at::Tensor hidden = bert->forward(input_ids, attention_mask, token_type_ids);  // [B, T, H]
  at::Tensor flat_labels = labels.reshape({-1});                                 // [B·T]
  MlmOutput out;
  if (head == MlmHead::Sparse) {
    // M sizes the gathered rows: from the caller's positions, or found here (a host sync).
    at::Tensor idx = masked_positions.defined() ? masked_positions
                                                : at::nonzero(flat_labels.ne(-100)).squeeze(1);  // [M]
    at::Tensor rows = hidden.reshape({-1, H}).index_select(0, idx);                              // [M, H]
    at::Tensor target = flat_labels.index_select(0, idx);                                        // [M]
    at::Tensor logits = predict(rows);                                                           // [M, V]
    // One fp32 copy serves the loss and the accuracy (argmax over fp32 is ~5x faster than over bf16
    // on CPU, and upcasting keeps the order, so the argmax is the same).
    at::Tensor logits32 = logits.to(accumulate_type(logits));
    out.loss_sum = at::cross_entropy_loss(logits32, target, {}, at::Reduction::Sum);
    out.num_masked = idx.size(0);
    out.num_correct = logits32.detach().argmax(-1).eq(target).sum();
  } else {
    at::Tensor logits = predict(hidden);  // [B, T, V]
    at::Tensor flat = logits.reshape({-1, V});
    at::Tensor valid = flat_labels.ne(-100);
    at::Tensor flat32 = flat.to(accumulate_type(flat));
    out.loss_sum = at::cross_entropy_loss(flat32, flat_labels, {}, at::Reduction::Sum, -100);
    out.num_masked = valid.sum().item<int64_t>();
    out.num_correct = flat32.detach().argmax(-1).eq(flat_labels).logical_and(valid).sum();
    out.logits = logits;
  }
  return out;
}

at::Tensor BertForMaskedLMImpl::logits(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                       const at::Tensor& token_type_ids) {
  return predict(bert->forward(input_ids, attention_mask, token_type_ids));
}

// ---- BertForSequenceClassification

BertForSequenceClassificationImpl::BertForSequenceClassificationImpl(const BertConfig& config, int64_t num_labels,
                                                                     bool init_weights)
    : config_(config) {
  if (num_labels <= 0) throw BadInput("num_labels must be positive, got " + std::to_string(num_labels));
  bert = register_module("bert", BertModel(config, /*add_pooling_layer=*/true));
  classifier = add_linear(*this, "classifier", config.hidden_size, num_labels);
  // transformers: config.classifier_dropout when set (not null), else hidden_dropout_prob.
  classifier_dropout_ = config.hidden_dropout_prob;
  auto it = config.extra.find("classifier_dropout");
  if (it != config.extra.end() && it->second != "null") {
    try {
      classifier_dropout_ = std::stod(it->second);
    } catch (const std::exception&) {
      throw BadInput("config: classifier_dropout must be a number or null, got " + it->second);
    }
  }
  if (init_weights) init_bert_weights(*this, config);
}

at::Tensor BertForSequenceClassificationImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                                      const at::Tensor& token_type_ids) {
  at::Tensor pooled = bert->pool(bert->forward(input_ids, attention_mask, token_type_ids));  // [B, H]
  return linear(maybe_dropout(pooled, classifier_dropout_, is_training()), classifier);      // [B, num_labels]
}

// ---- helpers

void init_bert_weights(torch::nn::Module& model, const BertConfig& config) {
  at::NoGradGuard no_grad;
  for (auto& item : model.named_parameters(/*recurse=*/true)) {
    const std::string& name = item.key();
    at::Tensor& p = item.value();
    if (ends_with(name, "LayerNorm.weight")) {
      p.fill_(1.0);
    } else if (ends_with(name, "bias")) {
      p.zero_();
    } else {
      p.normal_(0.0, config.initializer_range);
      if (ends_with(name, "word_embeddings.weight") && config.pad_token_id >= 0) p[config.pad_token_id].zero_();
    }
  }
}

int64_t count_parameters(const torch::nn::Module& model) {
  std::unordered_set<const void*> seen;
  int64_t n = 0;
  for (const auto& p : model.parameters()) {
    if (seen.insert(p.unsafeGetTensorImpl()).second) n += p.numel();
  }
  return n;
}

std::vector<std::pair<std::string, at::Tensor>> named_parameter_list(const torch::nn::Module& model) {
  std::vector<std::pair<std::string, at::Tensor>> named;
  for (const auto& item : model.named_parameters(/*recurse=*/true)) named.emplace_back(item.key(), item.value());
  return named;
}

at::Tensor additive_attention_mask(const at::Tensor& attention_mask) {
  // -(2 - 2^-7) · 2^127: the lowest finite bf16, exactly representable in fp32.
  constexpr double kLowest = -3.3895313892515355e38;
  at::Tensor keep = attention_mask.to(at::kFloat);            // [B, T]
  return ((1.0 - keep) * kLowest).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, T]
}

}  // namespace bertpt::model
