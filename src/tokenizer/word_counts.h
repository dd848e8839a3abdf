// A word -> count table for tokenizer training: open addressing over a dense entry array, words
// stored back to back in one arena. It is the structure the trainer's counting spends its time in,
// so it avoids one heap allocation per distinct word (std::unordered_map<std::string, ...> does not).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bertpt::tokenizer {

class WordCounts {
 public:
  struct PruneResult {
    uint64_t words = 0;        // distinct words removed
    uint64_t occurrences = 0;  // sum of their counts
    uint64_t max_count = 0;    // the largest count removed (every word with count <= it went)
  };

  WordCounts() = default;

  void add(std::string_view word, uint64_t count = 1);
  // Adds every word of `other`. Counts are sums, so the result does not depend on merge order.
  void merge_from(const WordCounts& other);
  // Moves everything out of `other` (cheap when this table is empty: the tables are swapped).
  void absorb(WordCounts&& other);

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  uint64_t total() const { return total_; }  // sum of all counts
  uint64_t count(std::string_view word) const;
  // Bytes held (entries, index and word arena), for memory reporting.
  size_t memory_bytes() const;

  // Keeps at most `target` words: removes every word whose count is <= t, for the smallest t that
  // leaves `target` or fewer. Whole count classes go at once, so the result depends only on the
  // table's contents (never on insertion order or thread scheduling).
  PruneResult prune_to(size_t target);

  // Calls f(word, count) for every entry, in insertion order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Entry& e : entries_) f(std::string_view(arena_.data() + e.offset, e.length), e.count);
  }
  // The entries sorted by word (bytewise); the canonical order for output and tests.
  std::vector<std::pair<std::string, uint64_t>> sorted_items() const;

  void clear();

 private:
  struct Entry {
    uint64_t offset;  // into arena_
    uint64_t count;
    uint32_t length;
    uint32_t hash_tag;  // high bits of the hash: cheap rejection before comparing bytes
  };

  void grow();
  void rebuild_index();
  std::string_view word_of(const Entry& e) const { return {arena_.data() + e.offset, e.length}; }

  std::vector<Entry> entries_;
  std::vector<uint32_t> index_;  // 0 = empty slot, else entry index + 1; size is a power of two
  std::string arena_;
  uint64_t total_ = 0;
};

}  // namespace bertpt::tokenizer
