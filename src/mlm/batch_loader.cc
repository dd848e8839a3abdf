#include "mlm/batch_loader.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include <ATen/ATen.h>

#include "common/error.h"
#include "tokenizer/hf_files.h"

namespace bertpt::mlm {

data::MaskingOptions masking_for_dataset(const data::Dataset& dataset, double mlm_probability, bool whole_word_mask) {
  const io::ManifestSpecialIds& ids = dataset.manifest().special_ids;
  data::MaskingOptions o;
  o.mlm_probability = mlm_probability;
  o.vocab_size = int64_t(dataset.vocab_size());
  o.mask_id = ids.mask;
  if (o.mask_id < 0) {
    throw BadInput(dataset.dir() + ": the tokenizer has no [MASK] token", "MLM training needs a tokenizer with [MASK]");
  }
  // HF's collator never selects [CLS]/[SEP] (the special-tokens mask) or padding.
  for (const int64_t id : {ids.pad, ids.cls, ids.sep}) {
    if (id >= 0) o.never_mask.push_back(id);
  }
  if (whole_word_mask) {
    // transformers' collator replaces every selected token of a whole-word mask by [MASK] (it sets
    // mask_replace_prob to 1, random_replace_prob to 0, with a warning): so does bertpt.
    o.mask_fraction = 1.0;
    o.random_fraction = 0.0;
    const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(dataset.tokenizer_dir());
    o.continues_word = tok.word_continuations();
    if (o.continues_word.empty()) {
      throw BadInput(dataset.tokenizer_dir() +
                         ": the tokenizer marks no word boundaries, so whole words cannot be masked",
                     "whole-word masking needs WordPiece's '##', byte-level BPE's 'Ġ' or Metaspace's '▁'");
    }
  }
  return o;
}

namespace {

// Sample `position`'s token ids (`ids`) and its masked inputs and labels (`in`, `lab`), T each.
void mask_sample_at(const data::Dataset& dataset, const data::Sampler& sampler, const data::MaskingOptions& masking,
                    uint64_t seed, uint64_t position, int64_t* ids, int64_t* in, int64_t* lab) {
  const uint64_t sample = sampler.sample_at(position);
  dataset.get(sample, ids);
  data::mask_tokens(masking, seed, sampler.epoch_of(position), sample, ids, in, lab, size_t(dataset.seq_len()));
}

}  // namespace

MicroBatch make_micro_batch(const data::Dataset& dataset, const data::Sampler& sampler,
                            const data::MaskingOptions& masking, uint64_t seed, uint64_t position, int64_t count,
                            bool pin_memory) {
  const int64_t T = dataset.seq_len();
  auto opts = at::TensorOptions().dtype(at::kLong).pinned_memory(pin_memory);
  MicroBatch mb;
  mb.input_ids = at::empty({count, T}, opts);  // [b, T]
  mb.labels = at::empty({count, T}, opts);     // [b, T]
  at::Tensor attention = at::empty({count, T}, opts);
  int64_t* in = mb.input_ids.data_ptr<int64_t>();
  int64_t* lab = mb.labels.data_ptr<int64_t>();
  int64_t* att = attention.data_ptr<int64_t>();
  std::vector<int64_t> ids(size_t(T), 0);
  const int64_t pad = dataset.manifest().special_ids.pad;
  bool padded = false;
  for (int64_t i = 0; i < count; ++i) {
    mask_sample_at(dataset, sampler, masking, seed, position + uint64_t(i), ids.data(), in + i * T, lab + i * T);
    for (int64_t t = 0; t < T; ++t) {
      const bool real = ids[size_t(t)] != pad;
      att[i * T + t] = real;
      padded |= !real;
      mb.num_tokens += real;
      mb.num_masked += lab[i * T + t] != data::kIgnoreLabel;
    }
  }
  // Packed (concat) data has no padding: no mask tensor lets the model skip the additive mask.
  if (padded) mb.attention_mask = attention;
  mb.masked_positions = at::empty({mb.num_masked}, opts);
  int64_t* mp = mb.masked_positions.data_ptr<int64_t>();
  for (int64_t j = 0, n = 0; j < count * T; ++j) {
    if (lab[j] != data::kIgnoreLabel) mp[n++] = j;
  }
  return mb;
}

int64_t count_masked(const data::Dataset& dataset, const data::Sampler& sampler, const data::MaskingOptions& masking,
                     uint64_t seed, uint64_t position, int64_t count) {
  const size_t T = size_t(dataset.seq_len());
  std::vector<int64_t> ids(T), in(T), lab(T);
  int64_t masked = 0;
  for (int64_t i = 0; i < count; ++i) {
    mask_sample_at(dataset, sampler, masking, seed, position + uint64_t(i), ids.data(), in.data(), lab.data());
    for (size_t t = 0; t < T; ++t) masked += lab[t] != data::kIgnoreLabel;
  }
  return masked;
}

struct BatchLoader::Impl {
  std::shared_ptr<const data::Dataset> dataset;
  LoaderOptions o;
  data::Sampler sampler;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<StepBatch> ready;
  std::exception_ptr error;
  bool stop = false;
  bool finished = false;
  std::thread thread;

  Impl(std::shared_ptr<const data::Dataset> d, LoaderOptions opts)
      : dataset(std::move(d)), o(std::move(opts)), sampler(dataset->size(), o.seed, o.shuffle) {}

  StepBatch build(int64_t k) const {
    const uint64_t G = uint64_t(o.per_device_batch * o.grad_accum * o.world);
    StepBatch sb;
    sb.first_position = o.start_position + uint64_t(k) * G;
    const uint64_t slice = o.start_position +
                           data::Sampler::rank_slice_begin(uint64_t(k), G, uint64_t(o.rank), uint64_t(o.world));
    for (int64_t m = 0; m < o.grad_accum; ++m) {
      MicroBatch mb = make_micro_batch(*dataset, sampler, o.masking, o.seed, slice + uint64_t(m * o.per_device_batch),
                                       o.per_device_batch, o.pin_memory);
      sb.num_masked += mb.num_masked;
      sb.num_tokens += mb.num_tokens;
      sb.micro.push_back(std::move(mb));
    }
    sb.global_num_masked = o.world == 1
                               ? sb.num_masked
                               : count_masked(*dataset, sampler, o.masking, o.seed, sb.first_position, int64_t(G));
    return sb;
  }

  void run() {
    try {
      for (int64_t k = 0; o.max_steps < 0 || k < o.max_steps; ++k) {
        StepBatch sb = build(k);
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || int(ready.size()) < o.prefetch_steps; });
        if (stop) return;
        ready.push_back(std::move(sb));
        cv.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_all();
  }
};

BatchLoader::BatchLoader(std::shared_ptr<const data::Dataset> dataset, LoaderOptions options) {
  if (dataset->size() == 0) throw BadInput(dataset->dir() + ": the train split is empty", "prepare more text");
  if (options.per_device_batch <= 0 || options.grad_accum <= 0 || options.world <= 0) {
    throw Error(Error::Kind::Internal, "BatchLoader: batch, accumulation and world size must be positive");
  }
  impl_ = std::make_unique<Impl>(std::move(dataset), std::move(options));
  impl_->thread = std::thread([this] { impl_->run(); });
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  impl_->thread.join();
}

StepBatch BatchLoader::next() {
  auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->cv.wait(lock, [&] { return !impl_->ready.empty() || impl_->error || impl_->finished; });
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (impl_->ready.empty()) {
    if (impl_->error) std::rethrow_exception(impl_->error);
    throw Error(Error::Kind::Internal, "BatchLoader: no more batches (max_steps reached)");
  }
  StepBatch sb = std::move(impl_->ready.front());
  impl_->ready.pop_front();
  impl_->cv.notify_all();
  return sb;
}

}  // namespace bertpt::mlm
