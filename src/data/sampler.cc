#include "data/sampler.h"

#include "common/error.h"
#include "common/hash.h"

namespace bertpt::data {

Permutation::Permutation(uint64_t n, uint64_t key) : n_(n) {
  // Smallest even bit width whose domain covers n (at least 2 bits so both halves exist).
  int bits = 2;
  while (bits < 64 && (uint64_t(1) << bits) < n) bits += 2;
  half_bits_ = bits / 2;
  half_mask_ = (uint64_t(1) << half_bits_) - 1;
  for (int r = 0; r < 4; ++r) keys_[r] = mix64(key ^ (0x9E3779B97F4A7C15ull * uint64_t(r + 1)));
}

uint64_t Permutation::feistel(uint64_t x) const {
  uint64_t left = x >> half_bits_, right = x & half_mask_;
  for (uint64_t k : keys_) {
    uint64_t next = left ^ (mix64(right ^ k) & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t Permutation::operator()(uint64_t i) const {
  // Cycle walking: the Feistel network permutes [0, 4^half_bits); re-apply until we land in [0, n).
  // The domain is at most 4n, so this takes a few rounds on average.
  uint64_t x = feistel(i);
  while (x >= n_) x = feistel(x);
  return x;
}

Sampler::Sampler(uint64_t num_samples, uint64_t seed, bool shuffle) : n_(num_samples), seed_(seed), shuffle_(shuffle) {
  if (n_ == 0) throw BadInput("the dataset has no samples", "prepare more text, or lower --seq-len");
}

uint64_t Sampler::sample_at(uint64_t position) const {
  uint64_t epoch = position / n_, within = position % n_;
  if (!shuffle_) return within;
  return Permutation(n_, mix64(seed_) ^ mix64(epoch + 0x5EED))(within);
}

uint64_t Sampler::rank_slice_begin(uint64_t step, uint64_t global_batch, uint64_t rank, uint64_t world) {
  if (world == 0 || global_batch % world != 0) {
    throw BadInput("global batch " + std::to_string(global_batch) + " does not split evenly over " +
                       std::to_string(world) + " ranks",
                   "choose a per-device batch size so that the global batch is a multiple of the world size");
  }
  return step * global_batch + rank * (global_batch / world);
}

}  // namespace bertpt::data
