#include "classify/finetune_task.h"

#include "classify/sequence_task.h"
#include "classify/token_task.h"
#include "common/hash.h"
#include "engine/collectives.h"

namespace bertpt::classify {

// A deterministic shuffle (the same on every rank and platform): Fisher-Yates driven by mix64.
std::vector<size_t> epoch_order(size_t n, uint64_t seed, int64_t epoch) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  uint64_t state = mix64(seed ^ 0x46494E4554554E45ull) ^ uint64_t(epoch);
  for (size_t i = n; i > 1; --i) {
    state = mix64(state + 0x9E3779B97F4A7C15ull);
    std::swap(order[i - 1], order[state % i]);
  }
  return order;
}

// The dropout stream of micro-step `micro` of step `step` on `rank` (micro-step 0: the stream of
// fine-tuning without accumulation, unchanged).
uint64_t finetune_dropout_seed(uint64_t seed, int64_t step, int rank, int64_t micro) {
  const uint64_t s = mix64(mix64(seed ^ 0x434C4153534946ull) ^ uint64_t(step)) ^ (uint64_t(rank) << 40);
  return micro == 0 ? s : mix64(s ^ uint64_t(micro));
}

std::vector<size_t> eval_shard(size_t n, const engine::Collectives& coll) {
  std::vector<size_t> mine;
  for (size_t i = size_t(coll.rank()); i < n; i += size_t(coll.world_size())) mine.push_back(i);
  return mine;
}

std::unique_ptr<FinetuneTask> make_finetune_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok) {
  const bool tokens = options.task == "token-classification" ||
                      (options.task == "auto" && options.data.format == "conll");
  return tokens ? make_token_task(options, tok) : make_sequence_task(options, tok);
}

}  // namespace bertpt::classify
