// ModernBERT as in Hugging Face transformers' modeling_modernbert.py (ModernBertModel,
// ModernBertForMaskedLM, ModernBertForSequenceClassification), on BertConfig with model_type
// "modernbert" (bert_config.h, ModernBertFields):
//
//   x = drop(norm(tok_embeddings[ids]))                       no position or token-type tables
//   per layer: x = x + drop(Wo · attn(attn_norm(x)))           pre-LN; layer 0's attn_norm is identity
//              x = x + Wo · drop(act(a) * g), [a, g] = Wi · mlp_norm(x)        GeGLU MLP
//   final_norm; MLM: decoder(norm(act(dense(x)))), decoder tied to tok_embeddings
//
// attn: one Wqkv GEMM viewed [3, nh, hd], rotary position embeddings (rotate_half form, cos/sin in
// fp32) with θ = global_rope_theta in full-attention layers and local_rope_theta in sliding ones; a
// sliding layer's query i sees keys |i - j| <= local_attention / 2. LayerNorms have no bias and the
// linears none unless the config's *_bias says so. Parameter names are transformers':
//
//   model.embeddings.tok_embeddings.weight, model.embeddings.norm.weight
//   model.layers.{i}.attn_norm.weight (i > 0), model.layers.{i}.attn.{Wqkv,Wo}.weight
//   model.layers.{i}.mlp_norm.weight, model.layers.{i}.mlp.{Wi,Wo}.weight, model.final_norm.weight
//   head.dense.weight, head.norm.weight, decoder.bias      (+ classifier.{weight,bias} for the classifier)
//
// Attention runs through attend() (attention.h): SDPA where fused, else the explicit kernel. A padded
// batch is unpadded, ModernBERT's own recipe: the embeddings, every projection and the MLP run on the
// N attended tokens only ([N, H]), so padding costs them nothing. When each row's attended tokens are
// one run (right or left padding), attention is variable-length too (attend_packed: CUDA's flash
// varlen kernel in bf16, else one attend() per group of similar lengths); a mask with holes runs
// attention on the [B, T] layout under the mask. Either way the rotary position of a token is its
// column, as in transformers. The hidden states at padding positions come back as zeros
// (transformers 5 computes them on the pad tokens; no output of a task reads them).
//
// Shape legend: B batch, T sequence length, H hidden size, nh heads, hd = H / nh, I intermediate size,
// V vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/masked_lm.h"
#include "model/rotary.h"

namespace bertpt::model {

// Where the tokens of a [B, T] batch are: `index` (undefined when nothing is padded) lists the flat
// positions b·T + t of the attended ones, and the residual stream then holds only those ([N, C]).
struct TokenLayout {
  int64_t B = 0, T = 0;
  at::Tensor index;      // [N] int64
  at::Tensor positions;  // [N] int64: each attended token's column t (its rotary position); with index
  // The rows' attended tokens as packed sequences (one per row, in order), when every row's are one
  // run of columns; else no sequences (attention on the [B, T] layout).
  PackedSequences rows;
  bool packed() const { return rows.count() > 0; }
  at::Tensor to_batch(const at::Tensor& tokens) const;  // [N, C] -> [B, T, C], zeros at the padding
  at::Tensor to_tokens(const at::Tensor& batch) const;  // [B, T, C] -> [N, C]
};
// The layout of a [B, T] batch under `attention_mask` ([B, T], 1 = attend, or undefined: no padding).
// `pack` allows packed sequences (their sliding window: half_window). Copies the mask to the host (a
// sync) when it is defined.
TokenLayout token_layout(const at::Tensor& attention_mask, int64_t B, int64_t T, int64_t half_window, bool pack);

// The encoder ("model.*" in every ModernBertFor* model).
class ModernBertModelImpl : public torch::nn::Module {
 public:
  explicit ModernBertModelImpl(const BertConfig& config);
  // As MaskedLanguageModel::encode (no token types). Throws BadInput when T exceeds
  // max_position_embeddings.
  at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {});

  const BertConfig& config() const { return config_; }
  AttentionKernel attention_kernel = AttentionKernel::Auto;
  // Variable-length attention for a padded batch (TokenLayout::rows); false keeps the [B, T] layout
  // under the mask (the comparison in bench/model_bench.cc and the tests).
  bool varlen_attention = true;
  // As BertEmbeddings::sparse_word_gradient (bert.h): only with a tied decoder.
  bool sparse_word_gradient = false;

  struct Layer {
    at::Tensor attn_norm;                      // [H]; undefined in layer 0 (identity)
    at::Tensor attn_norm_bias, mlp_norm_bias;  // [H] with norm_bias, else undefined
    at::Tensor wqkv, wqkv_bias;                // [3H, H], [3H] with attention_bias
    at::Tensor wo, wo_bias;                    // [H, H]
    at::Tensor mlp_norm;                       // [H]
    at::Tensor wi, wi_bias;                    // [2I, H]
    at::Tensor mlp_wo, mlp_wo_bias;            // [H, I]
  };
  at::Tensor tok_embeddings;                       // [V, H]
  at::Tensor embedding_norm, embedding_norm_bias;  // "embeddings.norm"
  std::vector<Layer> layers;
  at::Tensor final_norm, final_norm_bias;

 private:
  // The attention sublayer's inputs besides the layer and x.
  struct AttentionContext {
    const TokenLayout& layout;
    at::Tensor mask;      // additive, on the [B, T] layout; undefined for packed attention or none
    bool windowed;        // packed attention in the sliding window (else the whole sequence)
    at::Tensor cos, sin;  // [T, hd], or [N, 1, hd] (each token's position) for packed attention
  };
  // x: [B, T, H], or [N, H] when `layout` is unpadded.
  at::Tensor attention(const Layer& layer, const at::Tensor& x, const AttentionContext& ctx);
  at::Tensor mlp(const Layer& layer, const at::Tensor& x);
  BertConfig config_;
};
TORCH_MODULE(ModernBertModel);

class ModernBertForMaskedLMImpl : public MaskedLanguageModel {
 public:
  // `init_weights == false` leaves the parameters uninitialised, for a model about to be loaded.
  explicit ModernBertForMaskedLMImpl(const BertConfig& config, bool init_weights = true);

  at::Tensor encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                    const at::Tensor& token_type_ids) override;
  at::Tensor predict(const at::Tensor& hidden) override;
  void set_attention_kernel(AttentionKernel kernel) override { model->attention_kernel = kernel; }

  ModernBertModel model{nullptr};
  at::Tensor head_dense, head_dense_bias;  // [H, H] ("head.dense"), bias with classifier_bias
  at::Tensor head_norm, head_norm_bias;    // "head.norm"
  at::Tensor decoder_weight;               // [V, H] when untied, else undefined (tok_embeddings)
  at::Tensor decoder_bias;                 // [V] ("decoder.bias") with decoder_bias
};
TORCH_MODULE(ModernBertForMaskedLM);

// ModernBertForSequenceClassification: pooled (config classifier_pooling: the first token, or the
// mean over attended tokens), or per_token ModernBertForTokenClassification: every token; then head
// (dense, act, norm) -> dropout -> classifier (with bias).
class ModernBertClassifierImpl : public Classifier {
 public:
  ModernBertClassifierImpl(const BertConfig& config, int64_t num_labels, bool per_token, bool init_weights = true);
  at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {},
                     const at::Tensor& token_type_ids = {}) override;
  // "classifier." and "head." (an MLM checkpoint's head.* is loaded, as transformers does).
  std::vector<std::string> head_prefixes() const override { return {"classifier.", "head."}; }

  ModernBertModel model{nullptr};
  at::Tensor head_dense, head_dense_bias, head_norm, head_norm_bias;
  at::Tensor classifier_weight, classifier_bias;  // [num_labels, H], [num_labels]

 private:
  at::Tensor pool(const at::Tensor& hidden, const at::Tensor& attention_mask) const;  // [B, T, H] -> [B, H]
};

class ModernBertForSequenceClassificationImpl : public ModernBertClassifierImpl {
 public:
  ModernBertForSequenceClassificationImpl(const BertConfig& config, int64_t num_labels, bool init_weights = true)
      : ModernBertClassifierImpl(config, num_labels, /*per_token=*/false, init_weights) {}
};
TORCH_MODULE(ModernBertForSequenceClassification);

class ModernBertForTokenClassificationImpl : public ModernBertClassifierImpl {
 public:
  ModernBertForTokenClassificationImpl(const BertConfig& config, int64_t num_labels, bool init_weights = true)
      : ModernBertClassifierImpl(config, num_labels, /*per_token=*/true, init_weights) {}
};
TORCH_MODULE(ModernBertForTokenClassification);

// transformers' ModernBertPreTrainedModel._init_weights over named parameters: Wqkv, Wi and the
// embeddings ~ N(0, σ), the output projections (attn.Wo, mlp.Wo, head.dense, an untied decoder) ~
// N(0, σ/√(2L)), the classifier ~ N(0, 1/√H), each truncated at ±initializer_cutoff_factor std;
// norms 1, biases 0. σ = initializer_range. Uses LibTorch's default generator.
void init_modernbert_weights(torch::nn::Module& model, const BertConfig& config);

}  // namespace bertpt::model
