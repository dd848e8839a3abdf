// The task models of the architecture a config names (model_type "bert" -> bert.h, "modernbert" ->
// modernbert.h, "roberta" / "xlm-roberta" -> roberta.h), behind the interfaces of masked_lm.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "model/bert_config.h"
#include "model/masked_lm.h"

namespace bertpt::model {

// `init_weights == false` leaves the parameters uninitialised (for a model about to be loaded). A
// RoBERTa / XLM-R config gets roberta.h's RobertaForMaskedLM and RobertaClassifier.
std::shared_ptr<MaskedLanguageModel> make_masked_lm(const BertConfig& config, bool init_weights = true);
std::shared_ptr<SequenceClassifier> make_sequence_classifier(const BertConfig& config, int64_t num_labels,
                                                             bool init_weights = true);
std::shared_ptr<TokenClassifier> make_token_classifier(const BertConfig& config, int64_t num_labels,
                                                       bool init_weights = true);

// The bare encoder (BertModel without pooler — RoBERTa's too —, or ModernBertModel), uninitialised: its module (to
// load, move, switch to eval) and its forward, input_ids and attention_mask [B, T] -> [B, T, H].
struct Encoder {
  std::shared_ptr<torch::nn::Module> module;
  std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> forward;
};
Encoder make_encoder(const BertConfig& config);

}  // namespace bertpt::model
