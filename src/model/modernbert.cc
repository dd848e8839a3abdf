#include "model/modernbert.h"

#include <cmath>
#include <string>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "model/glu.h"
#include "model/module_tree.h"
#include "model/ops.h"
#include "model/rotary.h"

namespace bertpt::model {

namespace {

// "<name>.weight" [out, in], and "<name>.bias" [out] when `bias`.
std::pair<at::Tensor, at::Tensor> add_linear(torch::nn::Module& parent, const std::string& name, int64_t in,
                                             int64_t out, bool bias) {
  auto m = group(parent, name);
  at::Tensor w = add_param(*m, "weight", {out, in});
  return {w, bias ? add_param(*m, "bias", {out}) : at::Tensor()};
}

// "<name>.weight" [H], and "<name>.bias" when the config's norm_bias.
std::pair<at::Tensor, at::Tensor> add_norm(torch::nn::Module& parent, const std::string& name, const BertConfig& c) {
  auto m = group(parent, name);
  at::Tensor w = add_param(*m, "weight", {c.hidden_size});
  return {w, c.modern.norm_bias ? add_param(*m, "bias", {c.hidden_size}) : at::Tensor()};
}

at::Tensor norm(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const BertConfig& c) {
  return ops::layer_norm(x, w, b, c.layer_norm_eps);
}

// head: norm(act(dense(x))), as ModernBertPredictionHead.
at::Tensor prediction_head(const at::Tensor& x, const at::Tensor& dense, const at::Tensor& dense_bias,
                           const at::Tensor& nw, const at::Tensor& nb, const BertConfig& c) {
  return norm(ops::activation(ops::linear(x, dense, dense_bias), c.modern.classifier_activation), nw, nb, c);
}

// PyTorch's trunc_normal_ (inverse-CDF): N(0, std) restricted to [-cutoff·std, cutoff·std].
void trunc_normal(at::Tensor& p, double std, double cutoff) {
  const double lo = std::erf(-cutoff / std::sqrt(2.0)), hi = std::erf(cutoff / std::sqrt(2.0));
  p.uniform_(lo, hi).erfinv_().mul_(std * std::sqrt(2.0)).clamp_(-cutoff * std, cutoff * std);
}

}  // namespace

// ---- ModernBertModel

ModernBertModelImpl::ModernBertModelImpl(const BertConfig& config) : config_(config) {
  config.validate();
  if (!config.is_modernbert()) throw Error(Error::Kind::Internal, "ModernBertModel needs model_type modernbert");
  const int64_t H = config.hidden_size, I = config.intermediate_size;
  const ModernBertFields& m = config.modern;
  auto emb = group(*this, "embeddings");
  tok_embeddings = add_param(*group(*emb, "tok_embeddings"), "weight", {config.vocab_size, H});
  std::tie(embedding_norm, embedding_norm_bias) = add_norm(*emb, "norm", config);
  auto layer_group = group(*this, "layers");
  for (int64_t i = 0; i < config.num_hidden_layers; ++i) {
    auto l = group(*layer_group, std::to_string(i));
    Layer layer;
    if (i > 0) std::tie(layer.attn_norm, layer.attn_norm_bias) = add_norm(*l, "attn_norm", config);
    auto attn = group(*l, "attn");
    std::tie(layer.wqkv, layer.wqkv_bias) = add_linear(*attn, "Wqkv", H, 3 * H, m.attention_bias);
    std::tie(layer.wo, layer.wo_bias) = add_linear(*attn, "Wo", H, H, m.attention_bias);
    std::tie(layer.mlp_norm, layer.mlp_norm_bias) = add_norm(*l, "mlp_norm", config);
    auto mlp = group(*l, "mlp");
    std::tie(layer.wi, layer.wi_bias) = add_linear(*mlp, "Wi", H, 2 * I, m.mlp_bias);
    std::tie(layer.mlp_wo, layer.mlp_wo_bias) = add_linear(*mlp, "Wo", I, H, m.mlp_bias);
    layers.push_back(layer);
  }
  std::tie(final_norm, final_norm_bias) = add_norm(*this, "final_norm", config);
}

at::Tensor TokenLayout::to_batch(const at::Tensor& tokens) const {
  if (!index.defined()) return tokens;
  const int64_t C = tokens.size(-1);
  return at::zeros({B * T, C}, tokens.options()).index_copy(0, index, tokens).view({B, T, C});
}

at::Tensor TokenLayout::to_tokens(const at::Tensor& batch) const {
  if (!index.defined()) return batch;
  return batch.reshape({B * T, batch.size(-1)}).index_select(0, index);
}

TokenLayout token_layout(const at::Tensor& attention_mask, int64_t B, int64_t T, int64_t half_window, bool pack) {
  TokenLayout layout{B, T, {}, {}, {}};
  if (!attention_mask.defined()) return layout;
  if (attention_mask.dim() != 2 || attention_mask.size(0) != B || attention_mask.size(1) != T) {
    throw BadInput("attention_mask must be [batch, sequence] = [" + std::to_string(B) + ", " + std::to_string(T) +
                   "] like input_ids, got " + std::to_string(attention_mask.dim()) + " dimensions of sizes " +
                   c10::str(attention_mask.sizes()));
  }
  const at::Tensor keep = attention_mask.to(at::kCPU, at::kBool).contiguous();  // [B, T] on the host
  const bool* k = keep.data_ptr<bool>();
  std::vector<int64_t> index, lengths;
  bool one_run_each = true;
  for (int64_t b = 0; b < B; ++b) {
    int64_t first = -1, last = -1, count = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (!k[b * T + t]) continue;
      index.push_back(b * T + t);
      if (first < 0) first = t;
      last = t, ++count;
    }
    one_run_each = one_run_each && last - first + 1 == count;
    lengths.push_back(count);
  }
  if (int64_t(index.size()) == B * T) return layout;  // nothing padded
  const c10::Device device = attention_mask.device();
  layout.index = at::tensor(index, at::kLong).to(device);
  layout.positions = layout.index.remainder(T);
  if (pack && one_run_each) layout.rows = pack_sequences(lengths, half_window, device);
  return layout;
}

at::Tensor ModernBertModelImpl::attention(const Layer& layer, const at::Tensor& x, const AttentionContext& ctx) {
  const TokenLayout& layout = ctx.layout;
  const int64_t B = layout.B, T = layout.T, H = config_.hidden_size;
  const int64_t nh = config_.num_attention_heads, hd = config_.head_dim();
  const double p = is_training() ? config_.modern.attention_dropout : 0.0;
  at::Tensor qkv = ops::linear(x, layer.wqkv, layer.wqkv_bias);  // [B, T, 3H] or [N, 3H]
  at::Tensor out;
  if (layout.packed()) {
    // unbind: one backward that stacks the three gradients, not three that each zero-fill all of qkv.
    const std::vector<at::Tensor> parts = qkv.view({-1, 3, nh, hd}).unbind(1);  // 3 x [N, nh, hd]
    at::Tensor q = apply_rotary(parts[0], ctx.cos, ctx.sin), k = apply_rotary(parts[1], ctx.cos, ctx.sin);
    at::Tensor a = attend_packed(q, k, parts[2], layout.rows, ctx.windowed, p, attention_kernel);
    out = a.reshape({-1, H});  // [N, H]
  } else {
    // Unbound along the view's own dimension: the backward stacks the three gradients as [B, T, 3, nh, hd],
    // which is qkv's gradient as it is (a permuted stack had to be copied back).
    std::vector<at::Tensor> parts = layout.to_batch(qkv).view({B, T, 3, nh, hd}).unbind(2);  // 3 x [B, T, nh, hd]
    for (at::Tensor& part : parts) part = part.transpose(1, 2);                              // [B, nh, T, hd]
    at::Tensor q = apply_rotary(parts[0], ctx.cos, ctx.sin), k = apply_rotary(parts[1], ctx.cos, ctx.sin);
    at::Tensor a = attend(q, k, parts[2], ctx.mask, p, attention_kernel);  // [B, nh, T, hd]
    out = layout.to_tokens(a.transpose(1, 2).reshape({B, T, H}));
  }
  return ops::dropout(ops::linear(out, layer.wo, layer.wo_bias), p, p > 0.0);
}

at::Tensor ModernBertModelImpl::mlp(const Layer& layer, const at::Tensor& x) {
  at::Tensor h = ops::linear(x, layer.wi, layer.wi_bias);  // [..., 2I]: input, then gate
  at::Tensor g = gated_activation(h, config_.hidden_act);  // [..., I]
  g = ops::dropout(g, config_.modern.mlp_dropout, is_training());
  return ops::linear(g, layer.mlp_wo, layer.mlp_wo_bias);
}

at::Tensor ModernBertModelImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask) {
  if (input_ids.dim() != 2) {
    throw BadInput("input_ids must be [batch, sequence], got " + std::to_string(input_ids.dim()) + " dimensions");
  }
  const int64_t T = input_ids.size(1);
  if (T > config_.max_position_embeddings) {
    throw BadInput("sequence length " + std::to_string(T) + " exceeds the model's max_position_embeddings (" +
                       std::to_string(config_.max_position_embeddings) + ")",
                   "use a shorter --seq-len, or a model config with more positions");
  }
  const ModernBertFields& m = config_.modern;
  const c10::Device device = input_ids.device();
  // With padding, the residual stream holds the attended tokens only.
  const int64_t half_window = m.local_attention / 2;
  const TokenLayout layout = token_layout(attention_mask, input_ids.size(0), T, half_window, varlen_attention);
  AttentionContext global{layout, {}, false, {}, {}}, local{layout, {}, true, {}, {}};
  std::tie(global.cos, global.sin) = rotary_cos_sin(T, config_.head_dim(), m.global_rope_theta, device);
  std::tie(local.cos, local.sin) = rotary_cos_sin(T, config_.head_dim(), m.local_rope_theta, device);
  if (layout.packed()) {  // each token's rotation, [N, 1, hd]
    for (AttentionContext* c : {&global, &local}) {
      c->cos = c->cos.index_select(0, layout.positions).unsqueeze(1);
      c->sin = c->sin.index_select(0, layout.positions).unsqueeze(1);
    }
  } else {
    if (attention_mask.defined()) global.mask = additive_attention_mask(attention_mask);  // [B, 1, 1, T]
    // A window that covers the whole sequence masks nothing beyond the padding.
    local.mask = T - 1 <= half_window ? global.mask : sliding_window_mask(T, half_window, global.mask, device);
  }
  // padding_idx keeps the pad row's gradient at zero, like nn.Embedding(padding_idx=pad).
  const bool sparse = sparse_word_gradient && device.is_cpu();
  const at::Tensor ids = layout.index.defined() ? input_ids.reshape({-1}).index_select(0, layout.index) : input_ids;
  at::Tensor x = at::embedding(tok_embeddings, ids, config_.pad_token_id, false, sparse);  // [B, T, H] or [N, H]
  x = ops::dropout(norm(x, embedding_norm, embedding_norm_bias, config_), m.embedding_dropout, is_training());
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    at::Tensor a = layer.attn_norm.defined() ? norm(x, layer.attn_norm, layer.attn_norm_bias, config_) : x;
    // Under autocast the projections are bf16; adding them to the fp32 residual keeps it fp32.
    x = x + attention(layer, a, m.is_global_layer(int64_t(i)) ? global : local);
    x = x + mlp(layer, norm(x, layer.mlp_norm, layer.mlp_norm_bias, config_));
  }
  return layout.to_batch(norm(x, final_norm, final_norm_bias, config_));  // zeros at the padding
}

// ---- ModernBertForMaskedLM

ModernBertForMaskedLMImpl::ModernBertForMaskedLMImpl(const BertConfig& config, bool init_weights)
    : MaskedLanguageModel(config) {
  model = register_module("model", ModernBertModel(config));
  auto head = group(*this, "head");
  std::tie(head_dense, head_dense_bias) = add_linear(*head, "dense", config.hidden_size, config.hidden_size,
                                                     config.modern.classifier_bias);
  std::tie(head_norm, head_norm_bias) = add_norm(*head, "norm", config);
  auto decoder = group(*this, "decoder");
  if (!config.tie_word_embeddings) {
    decoder_weight = add_param(*decoder, "weight", {config.vocab_size, config.hidden_size});
  } else {
    model->sparse_word_gradient = true;  // the tied decoder supplies the dense gradient
  }
  if (config.modern.decoder_bias) decoder_bias = add_param(*decoder, "bias", {config.vocab_size});
  if (init_weights) init_modernbert_weights(*this, config);
}

at::Tensor ModernBertForMaskedLMImpl::encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                             const at::Tensor& /*token_type_ids*/) {
  return model->forward(input_ids, attention_mask);
}

at::Tensor ModernBertForMaskedLMImpl::predict(const at::Tensor& hidden) {
  at::Tensor t = prediction_head(hidden, head_dense, head_dense_bias, head_norm, head_norm_bias, config_);
  return ops::linear(t, decoder_weight.defined() ? decoder_weight : model->tok_embeddings, decoder_bias);
}

// ---- ModernBertForSequenceClassification, ModernBertForTokenClassification

ModernBertClassifierImpl::ModernBertClassifierImpl(const BertConfig& config, int64_t num_labels, bool per_token,
                                                   bool init_weights)
    : Classifier(config, num_labels, per_token) {
  if (num_labels <= 0) throw BadInput("num_labels must be positive, got " + std::to_string(num_labels));
  model = register_module("model", ModernBertModel(config));
  auto head = group(*this, "head");
  std::tie(head_dense, head_dense_bias) = add_linear(*head, "dense", config.hidden_size, config.hidden_size,
                                                     config.modern.classifier_bias);
  std::tie(head_norm, head_norm_bias) = add_norm(*head, "norm", config);
  std::tie(classifier_weight, classifier_bias) = add_linear(*this, "classifier", config.hidden_size, num_labels,
                                                            /*bias=*/true);
  if (init_weights) init_modernbert_weights(*this, config);
}

at::Tensor ModernBertClassifierImpl::pool(const at::Tensor& hidden, const at::Tensor& attention_mask) const {
  if (config_.modern.classifier_pooling != "mean") return hidden.select(1, 0);
  at::Tensor keep = attention_mask.defined() ? attention_mask.to(hidden.scalar_type())
                                             : at::ones({hidden.size(0), hidden.size(1)}, hidden.options());
  return (hidden * keep.unsqueeze(-1)).sum(1) / keep.sum(1, /*keepdim=*/true);
}

at::Tensor ModernBertClassifierImpl::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                             const at::Tensor& /*token_type_ids*/) {
  at::Tensor hidden = model->forward(input_ids, attention_mask);  // [B, T, H]
  if (!per_token_) hidden = pool(hidden, attention_mask);         // [B, H]
  at::Tensor h = prediction_head(hidden, head_dense, head_dense_bias, head_norm, head_norm_bias, config_);
  h = ops::dropout(h, config_.modern.classifier_dropout, is_training());
  return ops::linear(h, classifier_weight, classifier_bias);
}

// ---- init

void init_modernbert_weights(torch::nn::Module& model, const BertConfig& config) {
  at::NoGradGuard no_grad;
  const double sigma = config.initializer_range, cutoff = config.modern.initializer_cutoff_factor;
  const double out_std = sigma / std::sqrt(2.0 * double(config.num_hidden_layers));
  for (auto& item : model.named_parameters(/*recurse=*/true)) {
    const std::string& name = item.key();
    at::Tensor& p = item.value();
    if (name.ends_with(".bias")) {
      p.zero_();
    } else if (name.ends_with("norm.weight")) {
      p.fill_(1.0);
    } else if (name.ends_with("attn.Wo.weight") || name.ends_with("mlp.Wo.weight") || name == "head.dense.weight" ||
               name == "decoder.weight") {
      trunc_normal(p, out_std, cutoff);
    } else if (name == "classifier.weight") {
      const double final_std = 1.0 / std::sqrt(double(config.hidden_size));
      trunc_normal(p, final_std, cutoff);
    } else {  // tok_embeddings, Wqkv, Wi
      trunc_normal(p, sigma, cutoff);
    }
  }
}

}  // namespace bertpt::model
