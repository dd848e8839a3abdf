#include "mlm/mlm_step.h"

#include <ATen/ATen.h>

#include "common/hash.h"
#include "model/masked_lm.h"

namespace bertpt::mlm {

uint64_t mlm_dropout_seed(uint64_t seed, int64_t step, int rank, int64_t micro) {
  return mix64(mix64(mix64(seed ^ 0x44524F504F555421ull) ^ uint64_t(step)) ^ (uint64_t(rank) << 32 | uint64_t(micro)));
}

engine::MicroForward mlm_micro_forward(model::MaskedLanguageModel& model, const StepBatch& batch,
                                       const at::Device& device,
                                       std::function<void(int64_t, const MicroBatch&)> before) {
  return [&model, &batch, device, before = std::move(before)](int64_t m) {
    const MicroBatch& mb = batch.micro[size_t(m)];
    if (before) before(m, mb);
    at::Tensor ids = mb.input_ids.to(device, /*non_blocking=*/true);  // [b, T]
    at::Tensor labels = mb.labels.to(device, /*non_blocking=*/true);  // [b, T]
    at::Tensor att = mb.attention_mask.defined() ? mb.attention_mask.to(device, true) : at::Tensor();
    at::Tensor positions = mb.masked_positions.to(device, /*non_blocking=*/true);  // [M]
    model::MlmOutput out = model.forward(ids, att, {}, labels, model::MlmHead::Sparse, positions);
    return engine::MicroOutput{out.loss_sum, out.num_correct};
  };
}

MicroBatch micro_batch_of(at::Tensor input_ids, at::Tensor labels, at::Tensor attention_mask) {
  MicroBatch mb;
  mb.masked_positions = labels.reshape({-1}).ne(-100).nonzero().reshape({-1});
  mb.num_masked = mb.masked_positions.size(0);
  mb.num_tokens = attention_mask.defined() ? attention_mask.sum().item<int64_t>() : input_ids.numel();
  mb.input_ids = std::move(input_ids);
  mb.labels = std::move(labels);
  mb.attention_mask = std::move(attention_mask);
  return mb;
}

}  // namespace bertpt::mlm
