#include "classify/encode.h"

#include <algorithm>

#include "common/error.h"

namespace bertpt::classify {

// The `tokenizers` crate's truncate_encodings, LongestFirst with a pair (truncation.rs), on lengths.
std::pair<size_t, size_t> longest_first_lengths(size_t n1, size_t n2, size_t max_tokens) {
  if (n1 + n2 <= max_tokens) return {n1, n2};
  // Reasoned on the shorter one as n1, then swapped back.
  const bool swap = n1 > n2;
  size_t short_len = swap ? n2 : n1, long_len = swap ? n1 : n2;
  // The longer one absorbs the whole cut when it can; `short_len > max_tokens` is HF's special case
  // that keeps the unsigned `max_tokens - short_len` from wrapping.
  long_len = short_len > max_tokens ? short_len : std::max(short_len, max_tokens - short_len);
  if (short_len + long_len > max_tokens) {
    // Both are cut to half the budget; the longer one gets the odd token.
    short_len = max_tokens / 2;
    long_len = short_len + max_tokens % 2;
  }
  // The rule never keeps more than there is; min() makes that plain.
  return swap ? std::pair{std::min(n1, long_len), std::min(n2, short_len)}
              : std::pair{std::min(n1, short_len), std::min(n2, long_len)};
}

void encode_example(const tokenizer::Tokenizer& tok, std::string_view a, std::string_view b, bool has_pair,
                    size_t max_len, EncodedExample& out) {
  const size_t specials = tok.num_special_tokens_to_add(has_pair);
  if (max_len < specials) {
    throw BadInput("a maximum length of " + std::to_string(max_len) + " tokens cannot hold the " +
                       std::to_string(specials) + " special tokens of " + (has_pair ? "a pair" : "an example"),
                   "use --max-seq-len " + std::to_string(specials + 1) + " or more (BERT: 128 or 512)");
  }
  // Per-thread scratch: encoding is called once per example, often from several threads.
  thread_local std::vector<uint32_t> ids_a, ids_b;
  ids_a.clear();
  ids_b.clear();
  // tokenizers 0.23.3 encodes both sequences in full, and longest_first sees their whole lengths.
  tok.encode(a, ids_a, false);
  if (has_pair) tok.encode(b, ids_b, false);
  // As HF, the sequences are cut before the post-processor adds the special tokens.
  const auto [keep_a, keep_b] = longest_first_lengths(ids_a.size(), ids_b.size(), max_len - specials);
  out.truncated = keep_a < ids_a.size() || keep_b < ids_b.size();
  ids_a.resize(keep_a);
  ids_b.resize(keep_b);
  out.ids.clear();
  out.type_ids.clear();
  tok.post_process(ids_a, has_pair ? &ids_b : nullptr, out.ids, &out.type_ids);
}

std::vector<EncodedExample> encode_examples(const tokenizer::Tokenizer& tok, const std::vector<Example>& examples,
                                            bool has_pair, size_t max_len, int64_t* truncated) {
  std::vector<EncodedExample> out(examples.size());
  int64_t cut = 0;
  for (size_t i = 0; i < examples.size(); ++i) {
    encode_example(tok, examples[i].text, examples[i].text_pair, has_pair, max_len, out[i]);
    cut += out[i].truncated ? 1 : 0;
  }
  if (truncated) *truncated = cut;
  return out;
}

}  // namespace bertpt::classify
