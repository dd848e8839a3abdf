// Training batches, prepared on a background thread from the memory-mapped dataset so the step never
// waits on data. One StepBatch = the micro-batches this rank runs for one optimizer step.
//
// Which samples: global batch G = per_device_batch x grad_accum x world. Optimizer step k (counted
// from the loader's start) covers global sample positions [start_position + k·G, ... + G); rank r
// reads the slice Sampler::rank_slice_begin (G/world positions), micro-batch m the m-th
// per_device_batch of that slice. The sample at a position comes from the seeded per-epoch
// permutation (data/sampler.h) and its mask from mask_tokens(seed, epoch, sample index) — so
// neither depends on batch size, accumulation, rank count, thread count, or on a resume.
//
// Shape legend: b per-device batch, T sequence length.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>

#include "data/dataset.h"
#include "data/masking.h"
#include "data/sampler.h"

namespace bertpt::mlm {

struct MicroBatch {
  at::Tensor input_ids;         // [b, T] int64, masked inputs
  at::Tensor attention_mask;    // [b, T] int64 (1 = token, 0 = [PAD]); undefined when nothing is padded
  at::Tensor labels;            // [b, T] int64: original id at predicted positions, -100 elsewhere
  at::Tensor masked_positions;  // [M] int64: flat indices (row·T + t) of the labelled positions, ascending;
                                // the sparse MLM head gathers them without a device-to-host sync
  int64_t num_masked = 0;       // positions with a label (M)
  int64_t num_tokens = 0;       // non-[PAD] positions
};

struct StepBatch {
  uint64_t first_position = 0;  // global sample position where this step's global batch starts
  std::vector<MicroBatch> micro;
  int64_t num_masked = 0;  // over this rank's micro-batches
  int64_t num_tokens = 0;
  // Over the whole global batch (every rank's slice): the loss divisor. Masks are a pure function of
  // (seed, epoch, sample), so each rank counts them itself instead of summing over ranks per step.
  int64_t global_num_masked = 0;
};

struct LoaderOptions {
  int64_t per_device_batch = 32;
  int64_t grad_accum = 1;
  int rank = 0, world = 1;
  uint64_t seed = 34;
  bool shuffle = true;
  uint64_t start_position = 0;   // global sample position of the first step (resume)
  data::MaskingOptions masking;  // vocab_size, mask id and special ids filled from the dataset
  int prefetch_steps = 2;        // StepBatches prepared ahead
  bool pin_memory = false;       // page-locked host tensors (fast, asynchronous copies to CUDA)
  int64_t max_steps = -1;        // stop producing after this many steps (-1: endless, cycling epochs)
};

// The masking options of a dataset: its [MASK] id, vocab size, and [PAD]/[CLS]/[SEP] never masked
// (manifest "special_ids"). BadInput when the manifest lacks them. `whole_word_mask`: the "##"
// tokens of the dataset's tokenizer (DATA/tokenizer) continue words (data/masking.h).
data::MaskingOptions masking_for_dataset(const data::Dataset& dataset, double mlm_probability,
                                         bool whole_word_mask = false);

// The number of masked positions of the `count` samples at consecutive global positions from
// `position`: what make_micro_batch would label, without building the batch.
int64_t count_masked(const data::Dataset& dataset, const data::Sampler& sampler, const data::MaskingOptions& masking,
                     uint64_t seed, uint64_t position, int64_t count);

// Fills one micro-batch from `count` consecutive global positions starting at `position` (used by
// the loader and by evaluation with a fixed mask).
MicroBatch make_micro_batch(const data::Dataset& dataset, const data::Sampler& sampler,
                            const data::MaskingOptions& masking, uint64_t seed, uint64_t position, int64_t count,
                            bool pin_memory = false);

class BatchLoader {
 public:
  BatchLoader(std::shared_ptr<const data::Dataset> dataset, LoaderOptions options);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // The next step's batch; blocks only when the background thread has fallen behind. Rethrows an
  // error of the background thread.
  StepBatch next();
  // Seconds next() spent waiting (the data loader's share of the step time; ~0 when it keeps up).
  double wait_seconds() const { return wait_seconds_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  double wait_seconds_ = 0;
};

}  // namespace bertpt::mlm
