// Dynamic masking for masked-language-model training, with the semantics of Hugging Face's
// DataCollatorForLanguageModeling (docs/hf-compat.md): each position that is not a special token or
// padding is selected with probability mlm_probability; of the selected, 80% become [MASK], 10% a
// uniformly random id of the whole vocabulary, 10% stay; labels hold the original id at selected
// positions and -100 elsewhere.
//
// Unlike HF, the draw is a pure function of (seed, epoch, global sample index, position): the mask
// of a sample never depends on batch size, rank, thread count, or on what was drawn before — so a
// resumed or re-sharded run sees exactly the masks of an uninterrupted one.
//
// Whole-word masking (`continues_word` set; HF's DataCollatorForLanguageModeling(whole_word_mask=True)):
// the draw is made once per word, at its first token, and a selected word is selected whole; a word is
// a token that is not special and not a WordPiece continuation ("##…"), with the continuations that
// follow it. The replacement is then drawn per token with mask_fraction / random_fraction (transformers
// uses 100% [MASK] with whole words: mlm/batch_loader.cc sets it so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bertpt::data {

constexpr int64_t kIgnoreLabel = -100;

struct MaskingOptions {
  double mlm_probability = 0.15;
  double mask_fraction = 0.8;    // of the selected: replaced by [MASK]
  double random_fraction = 0.1;  // of the selected: replaced by a random id (the rest stay)
  int64_t mask_id = 4;
  int64_t vocab_size = 0;
  std::vector<int64_t> never_mask;   // [PAD], [CLS], [SEP] (and any other special ids)
  std::vector<bool> continues_word;  // whole-word masking: by id, true for "##" tokens; empty: per token
};

// By id: whether the token continues a word (WordPiece's "##" prefix), for whole-word masking.
std::vector<bool> wordpiece_continuations(const std::vector<std::string>& vocab_in_id_order);

struct MaskCounts {
  uint64_t candidates = 0, selected = 0, masked = 0, randomized = 0;
};

// ids, inputs, labels: `length` values each. Returns what was drawn.
MaskCounts mask_tokens(const MaskingOptions& options, uint64_t seed, uint64_t epoch, uint64_t sample_index,
                       const int64_t* ids, int64_t* inputs, int64_t* labels, size_t length);

}  // namespace bertpt::data
