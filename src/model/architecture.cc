#include "model/architecture.h"

#include "model/bert.h"
#include "model/modernbert.h"
#include "model/roberta.h"

namespace bertpt::model {

std::shared_ptr<MaskedLanguageModel> make_masked_lm(const BertConfig& config, bool init_weights) {
  if (config.is_modernbert()) return std::make_shared<ModernBertForMaskedLMImpl>(config, init_weights);
  if (config.is_roberta()) return std::make_shared<RobertaForMaskedLMImpl>(config, init_weights);
  return std::make_shared<BertForMaskedLMImpl>(config, init_weights);
}

std::shared_ptr<SequenceClassifier> make_sequence_classifier(const BertConfig& config, int64_t num_labels,
                                                             bool init_weights) {
  if (config.is_roberta())
    return std::make_shared<RobertaClassifierImpl>(config, num_labels, /*per_token=*/false, init_weights);
  if (config.is_modernbert())
    return std::make_shared<ModernBertForSequenceClassificationImpl>(config, num_labels, init_weights);
  return std::make_shared<BertForSequenceClassificationImpl>(config, num_labels, init_weights);
}

std::shared_ptr<TokenClassifier> make_token_classifier(const BertConfig& config, int64_t num_labels,
                                                       bool init_weights) {
  if (config.is_roberta())
    return std::make_shared<RobertaClassifierImpl>(config, num_labels, /*per_token=*/true, init_weights);
  if (config.is_modernbert())
    return std::make_shared<ModernBertForTokenClassificationImpl>(config, num_labels, init_weights);
  return std::make_shared<BertForTokenClassificationImpl>(config, num_labels, init_weights);
}

Encoder make_encoder(const BertConfig& config) {
  if (config.is_modernbert()) {
    auto m = std::make_shared<ModernBertModelImpl>(config);
    return {m, [m](const at::Tensor& ids, const at::Tensor& mask) { return m->forward(ids, mask); }};
  }
  auto m = std::make_shared<BertModelImpl>(config, /*add_pooling_layer=*/false);
  return {m, [m](const at::Tensor& ids, const at::Tensor& mask) { return m->forward(ids, mask); }};
}

}  // namespace bertpt::model
