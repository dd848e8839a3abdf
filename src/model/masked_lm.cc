#include "model/masked_lm.h"

#include <unordered_set>

#include <ATen/ATen.h>

#include "common/error.h"
#include "model/ops.h"
#include "model/top1_hits.h"

namespace bertpt::model {

MlmOutput MaskedLanguageModel::forward(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                       const at::Tensor& token_type_ids, const at::Tensor& labels, MlmHead head,
                                       const at::Tensor& masked_positions) {
  if (!labels.defined() || labels.sizes() != input_ids.sizes()) {
    throw BadInput("MLM labels must have the shape of input_ids");
  }
  const int64_t H = config_.hidden_size, V = config_.vocab_size;
  at::Tensor hidden = encode(input_ids, attention_mask, token_type_ids);  // [B, T, H]
  at::Tensor flat_labels = labels.reshape({-1});                          // [B·T]
  MlmOutput out;
  if (head == MlmHead::Sparse) {
    // M sizes the gathered rows: from the caller's positions, or found here (a host sync).
    at::Tensor idx = masked_positions.defined() ? masked_positions
                                                : at::nonzero(flat_labels.ne(-100)).squeeze(1);  // [M]
    at::Tensor rows = hidden.reshape({-1, H}).index_select(0, idx);                              // [M, H]
    at::Tensor target = flat_labels.index_select(0, idx);                                        // [M]
    at::Tensor logits = predict(rows);                                                           // [M, V]
    // One fp32 copy serves the loss and the accuracy (upcasting keeps the order, so the argmax is the
    // same).
    at::Tensor logits32 = logits.to(ops::accumulate_type(logits));
    out.loss_sum = at::cross_entropy_loss(logits32, target, {}, at::Reduction::Sum);
    out.num_masked = idx.size(0);
    out.num_correct = top1_hits(logits32.detach(), target);
  } else {
    at::Tensor logits = predict(hidden);  // [B, T, V]
    at::Tensor flat = logits.reshape({-1, V});
    at::Tensor valid = flat_labels.ne(-100);
    at::Tensor flat32 = flat.to(ops::accumulate_type(flat));
    out.loss_sum = at::cross_entropy_loss(flat32, flat_labels, {}, at::Reduction::Sum, -100);
    out.num_masked = valid.sum().item<int64_t>();
    out.num_correct = top1_hits(flat32.detach(), flat_labels);  // -100 is never a hit
    out.logits = logits;
  }
  return out;
}

at::Tensor MaskedLanguageModel::logits(const at::Tensor& input_ids, const at::Tensor& attention_mask,
                                       const at::Tensor& token_type_ids) {
  return predict(encode(input_ids, attention_mask, token_type_ids));
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

}  // namespace bertpt::model
