// MLM evaluation with a fixed mask: the held-out split is read in order and every sample is masked
// with mask_tokens(kEvalMaskSeed, epoch 0, index) — so the same model on the same data gives the
// same numbers every time, whatever the batch size or number of ranks.
// No LibTorch in this header (the CLI includes it); the model is passed by its Impl type.
#pragma once

#include <cstdint>
#include <string>

namespace bertpt::model {
class MaskedLanguageModel;
}
namespace bertpt::data {
class Dataset;
}

namespace bertpt::engine {
class Collectives;
}

namespace bertpt::mlm {

constexpr uint64_t kEvalMaskSeed = 0x4556414C4D41534Bull;  // "EVALMASK"

struct EvalOptions {
  int64_t batch_size = 32;
  int64_t max_batches = 0;  // 0: the whole split
  uint64_t mask_seed = kEvalMaskSeed;
  double mlm_probability = 0.15;
  bool whole_word_mask = false;  // as in training (data/masking.h)
  bool bf16 = false;             // autocast, as in training
  std::string device = "cpu";
};

struct EvalResult {
  double loss = 0;        // mean cross-entropy over the masked positions
  double perplexity = 0;  // exp(loss)
  double accuracy = 0;    // share of masked positions predicted exactly
  int64_t masked = 0, sequences = 0, batches = 0;
  double seconds = 0;
};

// Evaluates `model` (on options.device) on `dataset`. Batches are dealt round-robin over the ranks
// of `collectives` (nullptr: one process) and the sums combined, so the result is the same as one
// process's. Leaves the model in eval mode.
EvalResult evaluate_mlm(model::MaskedLanguageModel& model, const data::Dataset& dataset, const EvalOptions& options,
                        engine::Collectives* collectives = nullptr);

// `bertpt eval`: loads CHECKPOINT_DIR (HF layout, safetensors) and DATA/split. BadInput when the
// model's and the dataset's vocabularies differ, or the split is empty.
EvalResult evaluate_checkpoint(const std::string& model_dir, const std::string& data_dir, const std::string& split,
                               const EvalOptions& options);

}  // namespace bertpt::mlm
