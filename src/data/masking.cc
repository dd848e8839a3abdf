#include "data/masking.h"

#include <algorithm>

#include "common/error.h"
#include "common/hash.h"

namespace bertpt::data {

namespace {

// Uniform double in [0, 1) from 53 bits of a hash.
inline double unit(uint64_t h) { return double(h >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<bool> wordpiece_continuations(const std::vector<std::string>& vocab_in_id_order) {
  std::vector<bool> out(vocab_in_id_order.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = vocab_in_id_order[i].rfind("##", 0) == 0;
  return out;
}

MaskCounts mask_tokens(const MaskingOptions& o, uint64_t seed, uint64_t epoch, uint64_t sample_index,
                       const int64_t* ids, int64_t* inputs, int64_t* labels, size_t length) {
  if (o.vocab_size <= 0) throw Error(Error::Kind::Internal, "masking needs the vocabulary size");
  MaskCounts c;
  // One key per sample; each position then draws three independent numbers from its own hashes.
  const uint64_t key = mix64(mix64(mix64(seed ^ 0x4D41534B00000000ull) ^ epoch) ^ sample_index);
  const bool whole_words = !o.continues_word.empty();
  bool word_selected = false, previous_special = true;
  for (size_t i = 0; i < length; ++i) {
    const int64_t id = ids[i];
    inputs[i] = id;
    labels[i] = kIgnoreLabel;
    const bool special = std::find(o.never_mask.begin(), o.never_mask.end(), id) != o.never_mask.end();
    const bool continuation = whole_words && !previous_special && id >= 0 && size_t(id) < o.continues_word.size() &&
                              o.continues_word[size_t(id)];
    previous_special = special;
    if (special) continue;
    ++c.candidates;
    const uint64_t h = mix64(key + 0x9E3779B97F4A7C15ull * (i + 1));
    // Per token, or once per word at its first token (a continuation follows its word's draw).
    if (!continuation) word_selected = unit(h) < o.mlm_probability;
    if (!word_selected) continue;
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
