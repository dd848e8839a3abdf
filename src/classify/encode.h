// Token ids of a classification example, exactly as Hugging Face's BertTokenizerFast returns them
// for tokenizer(text, text_pair, truncation=True, max_length=max_len):
//   [CLS] a [SEP]            type ids 0...
//   [CLS] a [SEP] b [SEP]    type ids 0 for [CLS] a [SEP], 1 for b [SEP]
// (from the tokenizer's post-processor template). When too long, the sequences are cut with the
// `tokenizers` crate's longest_first rule (truncation.rs) on max_len minus the special tokens:
// the shorter sequence is kept whole if the longer one can absorb the cut, else both are cut to
// half of the budget (the longer one gets the odd token; the second one when they are equal).
// The rule sees the whole lengths: tokenizers 0.23.3 (the pinned peer, requirements/hf-peer.txt)
// dropped 0.23.0-0.23.2's early exit (Tokenizer::encode_with_limit), which had stopped each
// sequence after the word reaching max_len ids; tests/classify/peer_encode_example_test.cc checks it.
// No LibTorch here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "classify/labeled_data.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::classify {

struct EncodedExample {
  std::vector<uint32_t> ids;
  std::vector<uint32_t> type_ids;
  bool truncated = false;  // some tokens were cut
};

// The lengths (n1, n2) that longest_first truncation keeps of sequences of n1 and n2 tokens within
// a budget of `max_tokens` (special tokens already subtracted). n2 = 0 for single sequences.
// The rule alone; encode_example gives it the whole lengths.
std::pair<size_t, size_t> longest_first_lengths(size_t n1, size_t n2, size_t max_tokens);

// Encodes `a` (and `b` when `has_pair`) into `out` (cleared first). `max_len` counts the special
// tokens too; BadInput when it cannot even hold them.
void encode_example(const tokenizer::Tokenizer& tok, std::string_view a, std::string_view b, bool has_pair,
                    size_t max_len, EncodedExample& out);

// encode_example over `examples` (text, and text_pair when `has_pair`); `truncated`, when given,
// receives how many were cut.
std::vector<EncodedExample> encode_examples(const tokenizer::Tokenizer& tok, const std::vector<Example>& examples,
                                            bool has_pair, size_t max_len, int64_t* truncated = nullptr);

}  // namespace bertpt::classify
