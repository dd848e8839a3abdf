#include "mlm/evaluate.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "data/dataset.h"
#include "data/sampler.h"
#include "engine/collectives.h"
#include "mlm/batch_loader.h"
#include "model/checkpoint.h"
#include "model/masked_lm.h"
#include "model/torch_compat.h"

namespace bertpt::mlm {

EvalResult evaluate_mlm(model::MaskedLanguageModel& model, const data::Dataset& dataset, const EvalOptions& o,
                        engine::Collectives* collectives) {
  auto t0 = std::chrono::steady_clock::now();
  engine::SingleProcess single;
  engine::Collectives& coll = collectives ? *collectives : single;
  const at::Device device(o.device);
  if (model.config().vocab_size != int64_t(dataset.vocab_size())) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(model.config().vocab_size) +
                       " but the dataset " + dataset.dir() + " has " + std::to_string(dataset.vocab_size()),
                   "evaluate on data prepared with the model's tokenizer");
  }
  if (dataset.seq_len() > uint64_t(model.config().max_sequence_length())) {
    throw BadInput("the dataset's seq_len " + std::to_string(dataset.seq_len()) + " exceeds the model's " +
                   std::to_string(model.config().max_sequence_length()) + " positions (max_position_embeddings " +
                   std::to_string(model.config().max_position_embeddings) + ")");
  }
  data::MaskingOptions masking = masking_for_dataset(dataset, o.mlm_probability, o.whole_word_mask);
  data::Sampler in_order(dataset.size(), 0, /*shuffle=*/false);
  const int64_t n = int64_t(dataset.size());
  int64_t batches = (n + o.batch_size - 1) / o.batch_size;
  if (o.max_batches > 0) batches = std::min(batches, o.max_batches);

  const bool was_training = model.is_training();
  model.eval();
  at::NoGradGuard no_grad;
  // [loss_sum, correct, masked, sequences], accumulated on the host per batch.
  std::vector<double> sums(4, 0.0);
  for (int64_t b = coll.rank(); b < batches; b += coll.world_size()) {
    const int64_t first = b * o.batch_size, count = std::min(o.batch_size, n - first);
    MicroBatch mb = make_micro_batch(dataset, in_order, masking, o.mask_seed, uint64_t(first), count);
    if (mb.num_masked == 0) continue;
    at::Tensor att = mb.attention_mask.defined() ? mb.attention_mask.to(device) : at::Tensor();
    torch_compat::AutocastGuard autocast(device.type(), at::kBFloat16, o.bf16);
    model::MlmOutput out = model.forward(mb.input_ids.to(device), att, {}, mb.labels.to(device),
                                         model::MlmHead::Sparse);
    sums[0] += out.loss_sum.item<double>();
    sums[1] += double(out.num_correct.item<int64_t>());
    sums[2] += double(out.num_masked);
    sums[3] += double(count);
  }
  coll.sum(sums);
  if (was_training) model.train();
  EvalResult r;
  r.masked = int64_t(sums[2]);
  r.sequences = int64_t(sums[3]);
  r.batches = batches;
  r.loss = r.masked > 0 ? sums[0] / sums[2] : 0.0;
  r.perplexity = std::exp(r.loss);
  r.accuracy = r.masked > 0 ? sums[1] / sums[2] : 0.0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

EvalResult evaluate_checkpoint(const std::string& model_dir, const std::string& data_dir, const std::string& split,
                               const EvalOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(data_dir, ec)) {
    throw BadInput("dataset directory " + data_dir + " does not exist", "pass a directory written by bertpt prepare");
  }
  data::Dataset dataset(data_dir, split);
  if (dataset.size() == 0) {
    throw BadInput(data_dir + ": the " + split + " split is empty",
                   split == "valid" ? "prepare with --valid-fraction > 0, or pass --split train" : "");
  }
  auto model = model::load_pretrained(model_dir, at::Device(options.device));
  return evaluate_mlm(*model, dataset, options);
}

}  // namespace bertpt::mlm
