// BERT as in Hugging Face transformers' modeling_bert.py (docs/hf-compat.md, "Model and checkpoint"): post-LN
// encoder, exact-erf GELU, tied MLM decoder. Parameters are registered under HF's names, so
// named_parameters() of BertForMaskedLM *is* the checkpoint's key list:
//
//   bert.embeddings.{word,position,token_type}_embeddings.weight, bert.embeddings.LayerNorm.*
//   bert.encoder.layer.{i}.attention.self.{query,key,value}.*, ...attention.output.{dense,LayerNorm}.*
//   bert.encoder.layer.{i}.intermediate.dense.*, ...output.{dense,LayerNorm}.*
//   cls.predictions.transform.{dense,LayerNorm}.*, cls.predictions.bias
//
// The modules hold raw parameter tensors and run functional ops (ops::linear, at::layer_norm):
// that keeps the names exact without wrapper modules, lets the Q/K/V projections run as one GEMM,
// and keeps this header to <torch/nn/module.h>.
//
// Mixed precision: run forward under torch_compat::AutocastGuard(device, bf16). GEMMs then run in
// bf16 with fp32 master weights and fp32 weight gradients; the residual stream, LayerNorm, softmax
// and the loss stay fp32.
//
// Shape legend: B batch, T sequence length, H hidden size, nh heads, hd = H / nh head size,
// I intermediate size, V vocabulary, P max positions, M number of masked (predicted) positions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/attention.h"
#include "model/bert_config.h"
#include "model/masked_lm.h"

namespace bertpt::model {

// A Linear layer's parameters (registered by the owning module under "<name>.weight/.bias").
struct LinearParams {
  at::Tensor weight;  // [out, in]
  at::Tensor bias;    // [out]
};

struct LayerNormParams {
  at::Tensor weight;  // [H], init 1
  at::Tensor bias;    // [H], init 0
};

// Registers "<name>.weight" [out, in] and "<name>.bias" [out] under `parent` (uninitialised).
LinearParams register_linear(torch::nn::Module& parent, const std::string& name, int64_t in, int64_t out);
// Registers "<name>.weight" and "<name>.bias" [h] under `parent` (uninitialised).
LayerNormParams register_layer_norm(torch::nn::Module& parent, const std::string& name, int64_t h);

// RoBERTa's position ids, as transformers' create_position_ids_from_input_ids: padding keeps
// position padding_idx, every other token counts on from padding_idx + 1 (cumsum of the non-pad mask,
// times the mask, plus padding_idx), so left and right padding give a text the same positions.
// input_ids: [B, T] int64 -> [B, T] int64.
at::Tensor position_ids_from_input_ids(const at::Tensor& input_ids, int64_t padding_idx);

// Word + position + token-type embeddings, LayerNorm, dropout. Positions are 0..T-1 (BERT), or for
// RoBERTa/XLM-R (config.is_roberta()) position_ids_from_input_ids(input_ids, pad_token_id), looked up
// with the pad row as padding_idx (its gradient stays zero), as RobertaEmbeddings does.
class BertEmbeddingsImpl : public torch::nn::Module {
 public:
  explicit BertEmbeddingsImpl(const BertConfig& config);
  // input_ids, token_type_ids: [B, T] int64 (token_type_ids may be undefined: all 0) -> [B, T, H]
  at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& token_type_ids);

  at::Tensor word_embeddings;        // [V, H]; also the MLM decoder weight (tied)
  at::Tensor position_embeddings;    // [P, H]
  at::Tensor token_type_embeddings;  // [type_vocab_size, H]
  LayerNormParams layer_norm;

  // On CPU, return the lookup's gradient for word_embeddings as a sparse tensor (the N looked-up
  // rows) instead of a dense [V, H] one. Only valid when another dense gradient reaches the same
  // tensor (the tied MLM decoder): autograd then adds the rows into it, saving a [V, H] zero-fill
  // and a [V, H] add per step. BertForMaskedLM turns it on; a lone encoder must keep it off (its
  // optimizer would see a sparse gradient).
  bool sparse_word_gradient = false;

 private:
  BertConfig config_;
};
TORCH_MODULE(BertEmbeddings);

// One post-LN transformer block:
//   a = LN(x + dropout(W_o · attention(x)))
//   y = LN(a + dropout(W_2 · act(W_1 · a)))
class BertLayerImpl : public torch::nn::Module {
 public:
  explicit BertLayerImpl(const BertConfig& config);
  // x: [B, T, H]; additive_mask: [B, 1, 1, T] or undefined (attend everywhere) -> [B, T, H]
  at::Tensor forward(const at::Tensor& x, const at::Tensor& additive_mask);

  LinearParams query, key, value;  // [H, H] each ("attention.self.{query,key,value}")
  LinearParams attention_output;   // [H, H] ("attention.output.dense")
  LayerNormParams attention_norm;  // "attention.output.LayerNorm"
  LinearParams intermediate;       // [I, H] ("intermediate.dense")
  LinearParams output;             // [H, I] ("output.dense")
  LayerNormParams output_norm;     // "output.LayerNorm"
  AttentionKernel attention_kernel = AttentionKernel::Auto;

 private:
  at::Tensor attention(const at::Tensor& x, const at::Tensor& additive_mask);
  BertConfig config_;
};
TORCH_MODULE(BertLayer);

// The encoder without a task head ("bert.*" in every BertFor* model, "roberta.*" in RobertaFor*).
// The pooler (dense + tanh of the first token) exists only when asked for: BertForMaskedLM has none,
// sequence classification needs it.
class BertModelImpl : public torch::nn::Module {
 public:
  explicit BertModelImpl(const BertConfig& config, bool add_pooling_layer = false);

  // input_ids: [B, T] int64; attention_mask: [B, T] (1 = token, 0 = padding; any integer, bool or
  // float dtype) or undefined when there is no padding (cheaper); token_type_ids: [B, T] or
  // undefined. Returns the last hidden states [B, T, H].
  // Throws BadInput when T exceeds config.max_sequence_length().
  at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {},
                     const at::Tensor& token_type_ids = {});
  // tanh(dense(hidden[:, 0])): [B, T, H] -> [B, H]. Requires add_pooling_layer.
  at::Tensor pool(const at::Tensor& hidden);

  void set_attention_kernel(AttentionKernel kernel);
  const BertConfig& config() const { return config_; }

  BertEmbeddings embeddings{nullptr};
  std::vector<BertLayer> layers;  // "encoder.layer.{i}"
  LinearParams pooler;            // [H, H] ("pooler.dense"); undefined without a pooling layer

 private:
  BertConfig config_;
};
TORCH_MODULE(BertModel);

class BertForMaskedLMImpl : public MaskedLanguageModel {
 public:
  // `init_weights == false` leaves the parameters uninitialised (at::empty): for a model that is
  // about to be loaded from a checkpoint, where HF's init of ~100M values would be wasted time.
  explicit BertForMaskedLMImpl(const BertConfig& config, bool init_weights = true);

  at::Tensor encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                    const at::Tensor& token_type_ids) override;
  // transform (dense, act, LayerNorm), then the decoder.
  at::Tensor predict(const at::Tensor& hidden) override;
  void set_attention_kernel(AttentionKernel kernel) override;

  BertModel bert{nullptr};
  LinearParams transform;          // [H, H] ("cls.predictions.transform.dense")
  LayerNormParams transform_norm;  // "cls.predictions.transform.LayerNorm"
  at::Tensor decoder_bias;         // [V] ("cls.predictions.bias"; "cls.predictions.decoder.bias" when untied)
  at::Tensor decoder_weight;       // [V, H] ("cls.predictions.decoder.weight") when the config unties it;
                                   // undefined when tied to bert.embeddings.word_embeddings (the default)
};
TORCH_MODULE(BertForMaskedLM);

// BERT with a classifier, as transformers' BertForSequenceClassification ("bert.*" incl.
// "bert.pooler.dense": the pooled first token) or, per_token, BertForTokenClassification ("bert.*"
// without a pooler: every token); then dropout and "classifier.{weight,bias}".
class BertClassifierImpl : public Classifier {
 public:
  BertClassifierImpl(const BertConfig& config, int64_t num_labels, bool per_token, bool init_weights = true);
  at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {},
                     const at::Tensor& token_type_ids = {}) override;
  // "classifier." (and "bert.pooler.": a MaskedLM checkpoint has no pooler).
  std::vector<std::string> head_prefixes() const override;

  BertModel bert{nullptr};
  LinearParams classifier;  // [num_labels, H]

 private:
  double classifier_dropout_ = 0.1;
};

class BertForSequenceClassificationImpl : public BertClassifierImpl {
 public:
  BertForSequenceClassificationImpl(const BertConfig& config, int64_t num_labels, bool init_weights = true)
      : BertClassifierImpl(config, num_labels, /*per_token=*/false, init_weights) {}
};
TORCH_MODULE(BertForSequenceClassification);

class BertForTokenClassificationImpl : public BertClassifierImpl {
 public:
  BertForTokenClassificationImpl(const BertConfig& config, int64_t num_labels, bool init_weights = true)
      : BertClassifierImpl(config, num_labels, /*per_token=*/true, init_weights) {}
};
TORCH_MODULE(BertForTokenClassification);

// transformers' classifier dropout: config.classifier_dropout when set (not null), else
// hidden_dropout_prob.
double classifier_dropout_of(const BertConfig& config);

// HF's initialisation over named parameters: every ".weight" of a Linear or Embedding ~ N(0,
// initializer_range) (the padding row of word_embeddings zeroed, and RoBERTa's of position_embeddings),
// every bias 0, LayerNorm weight 1 ("LayerNorm.weight", RoBERTa's "lm_head.layer_norm.weight").
// Uses LibTorch's default generator (seed it with torch::manual_seed for reproducible models).
// The constructors call it; call again to re-initialise.
void init_bert_weights(torch::nn::Module& model, const BertConfig& config);

}  // namespace bertpt::model
