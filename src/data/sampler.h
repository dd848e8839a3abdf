// The order in which training visits samples: a seeded permutation per epoch that can be evaluated
// at any position in O(1) time and memory (a Feistel network over the index bits with cycle
// walking), so resuming at sample 10^9 is instant — no replaying of batches.
#pragma once

#include <cstdint>

namespace bertpt::data {

// A pseudo-random bijection of [0, n), fixed by `key`.
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t key);
  uint64_t operator()(uint64_t i) const;
  uint64_t size() const { return n_; }

 private:
  uint64_t feistel(uint64_t x) const;
  uint64_t n_;
  uint64_t keys_[4];
  int half_bits_;
  uint64_t half_mask_;
};

// Positions count samples consumed since the start of training, across epochs. The sample at a
// position is permutation(epoch)(position mod N) with epoch = position / N.
class Sampler {
 public:
  Sampler(uint64_t num_samples, uint64_t seed, bool shuffle = true);
  uint64_t num_samples() const { return n_; }
  uint64_t epoch_of(uint64_t position) const { return position / n_; }
  uint64_t sample_at(uint64_t position) const;

  // Global batch `step` of size `global_batch` is split into `world` equal, disjoint, contiguous
  // slices; rank `rank` reads positions [begin, begin + global_batch / world).
  static uint64_t rank_slice_begin(uint64_t step, uint64_t global_batch, uint64_t rank, uint64_t world);

 private:
  uint64_t n_, seed_;
  bool shuffle_;
};

}  // namespace bertpt::data
