#include "data/masking.h"

#include <algorithm>

#include "common/error.h"
#include "common/hash.h"

namespace bertpt::data {

namespace {

// Uniform double in [0, 1) from 53 bits of a hash.
inline double unit(uint64_t h) { return double(h >> 11) * 0x1.0p-53; }

}  // namespace

MaskCounts mask_tokens(const MaskingOptions& o, uint64_t seed, uint64_t epoch, uint64_t sample_index,
                       const int64_t* ids, int64_t* inputs, int64_t* labels, size_t length) {
  if (o.vocab_size <= 0) throw Error(Error::Kind::Internal, "masking needs the vocabulary size");
  MaskCounts c;
  // One key per sample; each position then draws three independent numbers from its own hashes.
  const uint64_t key = mix64(mix64(mix64(seed ^ 0x4D41534B00000000ull) ^ epoch) ^ sample_index);
  for (size_t i = 0; i < length; ++i) {
    const int64_t id = ids[i];
    inputs[i] = id;
    labels[i] = kIgnoreLabel;
    if (std::find(o.never_mask.begin(), o.never_mask.end(), id) != o.never_mask.end()) continue;
    ++c.candidates;
    const uint64_t h = mix64(key + 0x9E3779B97F4A7C15ull * (i + 1));
    if (unit(h) >= o.mlm_probability) continue;
    ++c.selected;
    labels[i] = id;
    const double action = unit(mix64(h ^ 0xA5A5A5A5A5A5A5A5ull));
    if (action < o.mask_fraction) {
      inputs[i] = o.mask_id;
      ++c.masked;
    } else if (action < o.mask_fraction + o.random_fraction) {
      inputs[i] = int64_t(mix64(h ^ 0x5A5A5A5A5A5A5A5Aull) % uint64_t(o.vocab_size));
      ++c.randomized;
    }
  }
  return c;
}

}  // namespace bertpt::data
