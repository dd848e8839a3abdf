#include "classify/classify.h"

#include <algorithm>
#include <numeric>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "model/torch_compat.h"

namespace bertpt::classify {

ClassifierBatch make_classifier_batch(const std::vector<classify::EncodedExample>& encoded,
                                      const std::vector<size_t>& indices, int64_t pad_id) {
  const int64_t b = int64_t(indices.size());
  size_t t = 1;
  for (size_t i : indices) t = std::max(t, encoded[i].ids.size());
  ClassifierBatch batch;
  batch.input_ids = at::full({b, int64_t(t)}, pad_id, at::kLong);
  batch.token_type_ids = at::zeros({b, int64_t(t)}, at::kLong);
  at::Tensor mask = at::zeros({b, int64_t(t)}, at::kLong);
  int64_t* ids = batch.input_ids.data_ptr<int64_t>();
  int64_t* types = batch.token_type_ids.data_ptr<int64_t>();
  int64_t* m = mask.data_ptr<int64_t>();
  bool padded = false;
  for (int64_t r = 0; r < b; ++r) {
    const classify::EncodedExample& e = encoded[indices[size_t(r)]];
    for (size_t j = 0; j < e.ids.size(); ++j) {
      ids[r * int64_t(t) + int64_t(j)] = e.ids[j];
      types[r * int64_t(t) + int64_t(j)] = j < e.type_ids.size() ? e.type_ids[j] : 0;
      m[r * int64_t(t) + int64_t(j)] = 1;
    }
    padded = padded || e.ids.size() < t;
  }
  if (padded) batch.attention_mask = mask;
  return batch;
}

void classify_each(model::Classifier& model, const std::vector<classify::EncodedExample>& encoded,
                   const std::vector<size_t>& indices, const ClassifyOptions& o,
                   const std::function<void(size_t i, const at::Tensor& logits)>& take) {
  const at::Device device(o.device);
  const int64_t n = int64_t(indices.size());
  // Longest first: similar lengths share a batch, and a too-large batch fails at once.
  std::vector<size_t> order(indices.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return encoded[indices[a]].ids.size() > encoded[indices[b]].ids.size(); });
  const bool was_training = model.is_training();
  model.eval();
  at::NoGradGuard no_grad;
  std::vector<size_t> chunk;
  for (int64_t first = 0; first < n; first += o.batch_size) {
    const int64_t count = std::min(o.batch_size, n - first);
    chunk.clear();
    for (int64_t i = 0; i < count; ++i) chunk.push_back(indices[order[size_t(first + i)]]);
    ClassifierBatch batch = make_classifier_batch(encoded, chunk, o.pad_id);
    at::Tensor logits;
    {
      torch_compat::AutocastGuard autocast(device.type(), at::kBFloat16, o.bf16);
      at::Tensor mask = batch.attention_mask.defined() ? batch.attention_mask.to(device) : at::Tensor();
      logits = model.forward(batch.input_ids.to(device), mask, batch.token_type_ids.to(device));
    }
    logits = logits.to(at::kFloat).cpu();
    for (int64_t i = 0; i < count; ++i) {
      const size_t k = order[size_t(first + i)];
      take(k, model.per_token() ? logits[i].narrow(0, 0, int64_t(encoded[indices[k]].ids.size())) : logits[i]);
    }
  }
  if (was_training) model.train();
}

at::Tensor classify(model::SequenceClassifier& model, const std::vector<classify::EncodedExample>& encoded,
                    const std::vector<size_t>& indices, const ClassifyOptions& o) {
  at::Tensor out = at::empty({int64_t(indices.size()), model.num_labels()}, at::kFloat);
  classify_each(model, encoded, indices, o, [&](size_t i, const at::Tensor& logits) { out[int64_t(i)].copy_(logits); });
  return out;
}

}  // namespace bertpt::classify
