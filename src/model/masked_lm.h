// What every architecture's task models offer the trainers, whatever their layers: a masked
// language model (pretrain, eval, fill-mask, bench) and a sequence classifier (finetune, predict).
// BERT (bert.h) and ModernBERT (modernbert.h) implement them; architecture.h makes the one a config
// names. Parameters keep transformers' names, so named_parameters() is the checkpoint's key list.
//
// Shape legend: B batch, T sequence length, H hidden size, V vocabulary, M masked positions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "model/attention.h"
#include "model/bert_config.h"

namespace bertpt::model {

// What one MLM forward returns. The loss is a SUM, not a mean: the trainer divides by the number
// of masked tokens of the whole global batch (all micro-batches, all ranks), so the gradient does
// not depend on how the batch is split.
struct MlmOutput {
  at::Tensor loss_sum;     // [] fp32, differentiable: sum of cross-entropy over masked positions
  int64_t num_masked = 0;  // M: positions with label != -100 (known on the host)
  at::Tensor num_correct;  // [] int64 on the model's device: argmax == label at masked positions
  at::Tensor logits;       // [B, T, V] when dense logits were requested, else undefined
};

// Which positions the prediction head runs on.
//   Sparse: only the M masked positions (labels != -100) — the head and the V-wide decoder GEMM
//           cost M/(B·T) of the dense head (~15%).
//   Dense:  every position, as transformers does; returns the [B, T, V] logits too.
enum class MlmHead { Sparse, Dense };

class MaskedLanguageModel : public torch::nn::Module {
 public:
  // labels: [B, T] int64, the original token id at masked positions and -100 elsewhere.
  // masked_positions (Sparse head, optional): [M] int64 on the model's device, the flat indices
  // (b·T + t) where labels != -100, ascending — given, the head needs no device-to-host sync to find
  // them (the batch loader computes them on the host). Other inputs as encode().
  MlmOutput forward(const at::Tensor& input_ids, const at::Tensor& attention_mask, const at::Tensor& token_type_ids,
                    const at::Tensor& labels, MlmHead head = MlmHead::Sparse, const at::Tensor& masked_positions = {});
  // Dense logits for fill-mask and inspection: [B, T, V].
  at::Tensor logits(const at::Tensor& input_ids, const at::Tensor& attention_mask = {},
                    const at::Tensor& token_type_ids = {});

  // The encoder's last hidden states [B, T, H]. input_ids: [B, T] int64; attention_mask: [B, T]
  // (1 = token, 0 = padding; any integer, bool or float dtype) or undefined when there is no padding
  // (cheaper); token_type_ids: [B, T] or undefined (ModernBERT has none and ignores them).
  virtual at::Tensor encode(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                            const at::Tensor& token_type_ids) = 0;
  // The prediction head on selected hidden states: [N, H] -> [N, V].
  virtual at::Tensor predict(const at::Tensor& hidden) = 0;
  virtual void set_attention_kernel(AttentionKernel kernel) = 0;

  const BertConfig& config() const { return config_; }

 protected:
  explicit MaskedLanguageModel(const BertConfig& config) : config_(config) {}
  BertConfig config_;
};

// A classification head on the encoder: one row of logits per sequence, as transformers'
// *ForSequenceClassification (from the pooled first token, or ModernBERT's mean), or one per token, as
// *ForTokenClassification (NER).
class Classifier : public torch::nn::Module {
 public:
  // -> [B, num_labels] logits, or [B, T, num_labels] when per_token(). Inputs as
  // MaskedLanguageModel::encode.
  virtual at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {},
                             const at::Tensor& token_type_ids = {}) = 0;
  // The checkpoint key prefixes of the task head: what a pre-trained encoder's file may lack.
  virtual std::vector<std::string> head_prefixes() const = 0;

  const BertConfig& config() const { return config_; }
  int64_t num_labels() const { return num_labels_; }
  bool per_token() const { return per_token_; }

 protected:
  Classifier(const BertConfig& config, int64_t num_labels, bool per_token)
      : config_(config), num_labels_(num_labels), per_token_(per_token) {}
  BertConfig config_;
  int64_t num_labels_;
  bool per_token_;
};
using SequenceClassifier = Classifier;  // per_token() false
using TokenClassifier = Classifier;     // per_token() true

// The number of parameters (each tensor once: the tied decoder is not counted twice).
int64_t count_parameters(const torch::nn::Module& model);

// (HF name, parameter) for every parameter, in registration order: what the optimizer and the
// gradient all-reduce are built from.
std::vector<std::pair<std::string, at::Tensor>> named_parameter_list(const torch::nn::Module& model);

}  // namespace bertpt::model
