// The masked-language-model step, shared by `bertpt train` (mlm/pretrain.cc) and `bertpt bench`
// (mlm/bench.cc) so that bench times the very step train runs: each micro-batch's loss with the sparse
// head, the dropout stream, and the step runner (engine/step_runner.h) with train's settings.
#pragma once

#include <cstdint>
#include <functional>

#include <ATen/core/Tensor.h>

#include "engine/step_runner.h"
#include "mlm/batch_loader.h"

namespace bertpt::model {
class MaskedLanguageModel;
}

namespace bertpt::mlm {

// The dropout stream of micro-step `micro` of optimizer step `step` on `rank`: a pure function, so a
// resumed run draws the same dropout masks as an uninterrupted one.
uint64_t mlm_dropout_seed(uint64_t seed, int64_t step, int rank, int64_t micro);

// Micro-batch m of `batch`: cross-entropy summed at its masked positions (the sparse head) and the
// correct predictions, on `device`. `before(m, micro_batch)` runs first (batch dumps, test hooks).
engine::MicroForward mlm_micro_forward(model::MaskedLanguageModel& model, const StepBatch& batch,
                                       const at::Device& device,
                                       std::function<void(int64_t, const MicroBatch&)> before = {});

// A micro-batch of host tensors ([b, T] int64; `attention_mask` may be undefined): the masked
// positions and counts derived from `labels` (-100: not predicted).
MicroBatch micro_batch_of(at::Tensor input_ids, at::Tensor labels, at::Tensor attention_mask);

}  // namespace bertpt::mlm
