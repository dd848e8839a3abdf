#include "tokenizer/word_counts.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/error.h"
#include "common/hash.h"

namespace bertpt::tokenizer {

namespace {

constexpr size_t kInitialSlots = 1024;

inline uint32_t tag_of(uint64_t h) { return static_cast<uint32_t>(h >> 32); }

}  // namespace

void WordCounts::add(std::string_view word, uint64_t count) {
  if (index_.empty() || (entries_.size() + 1) * 2 > index_.size()) grow();
  const uint64_t h = hash64(word);
  const uint32_t tag = tag_of(h);
  const size_t mask = index_.size() - 1;
  size_t slot = static_cast<size_t>(h) & mask;
  while (true) {
    const uint32_t v = index_[slot];
    if (v == 0) break;
    Entry& e = entries_[v - 1];
    if (e.hash_tag == tag && e.length == word.size() &&
        std::memcmp(arena_.data() + e.offset, word.data(), word.size()) == 0) {
      e.count += count;
      total_ += count;
      return;
    }
    slot = (slot + 1) & mask;
  }
  if (word.size() > std::numeric_limits<uint32_t>::max()) {
    throw BadInput("a single word of " + std::to_string(word.size()) + " bytes is too long to count");
  }
  if (entries_.size() >= std::numeric_limits<uint32_t>::max() - 1) {
    throw BadInput("more than 4 billion distinct words", "lower --max-words");
  }
  Entry e;
  e.offset = arena_.size();
  e.count = count;
  e.length = static_cast<uint32_t>(word.size());
  e.hash_tag = tag;
  arena_.append(word);
  entries_.push_back(e);
  index_[slot] = static_cast<uint32_t>(entries_.size());
  total_ += count;
}

uint64_t WordCounts::count(std::string_view word) const {
  if (index_.empty()) return 0;
  const uint64_t h = hash64(word);
  const uint32_t tag = tag_of(h);
  const size_t mask = index_.size() - 1;
  for (size_t slot = static_cast<size_t>(h) & mask;; slot = (slot + 1) & mask) {
    const uint32_t v = index_[slot];
    if (v == 0) return 0;
    const Entry& e = entries_[v - 1];
    if (e.hash_tag == tag && word_of(e) == word) return e.count;
  }
}

void WordCounts::merge_from(const WordCounts& other) {
  other.for_each([this](std::string_view w, uint64_t c) { add(w, c); });
}

void WordCounts::absorb(WordCounts&& other) {
  if (size() < other.size()) std::swap(*this, other);
  merge_from(other);
  other.clear();
}

size_t WordCounts::memory_bytes() const {
  return entries_.capacity() * sizeof(Entry) + index_.capacity() * sizeof(uint32_t) + arena_.capacity();
}

void WordCounts::grow() {
  size_t slots = index_.empty() ? kInitialSlots : index_.size() * 2;
  while ((entries_.size() + 1) * 2 > slots) slots *= 2;
  index_.assign(slots, 0);
  rebuild_index();
}

void WordCounts::rebuild_index() {
  const size_t mask = index_.size() - 1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    // The tag is the hash's high half; the slot needs the low half, so hash again.
    const uint64_t h = hash64(word_of(entries_[i]));
    size_t slot = static_cast<size_t>(h) & mask;
    while (index_[slot] != 0) slot = (slot + 1) & mask;
    index_[slot] = static_cast<uint32_t>(i + 1);
  }
}

WordCounts::PruneResult WordCounts::prune_to(size_t target) {
  PruneResult result;
  if (entries_.size() <= target) return result;
  // Find the smallest threshold t such that the words with count > t number at most `target`.
  std::vector<uint64_t> counts;
  counts.reserve(entries_.size());
  for (const Entry& e : entries_) counts.push_back(e.count);
  // The (target+1)-th largest count: every word with that count or less has to go.
  const size_t k = target;  // 0-based index in descending order
  std::nth_element(counts.begin(), counts.begin() + k, counts.end(), std::greater<uint64_t>());
  const uint64_t threshold = counts[k];
  counts.clear();
  counts.shrink_to_fit();

  std::vector<Entry> kept;
  std::string arena;
  for (const Entry& e : entries_) {
    if (e.count <= threshold) {
      ++result.words;
      result.occurrences += e.count;
      result.max_count = std::max(result.max_count, e.count);
      continue;
    }
    Entry n = e;
    n.offset = arena.size();
    arena.append(arena_.data() + e.offset, e.length);
    kept.push_back(n);
  }
  entries_ = std::move(kept);
  arena_ = std::move(arena);
  total_ -= result.occurrences;
  size_t slots = kInitialSlots;
  while ((entries_.size() + 1) * 2 > slots) slots *= 2;
  index_.assign(slots, 0);
  rebuild_index();
  return result;
}

std::vector<std::pair<std::string, uint64_t>> WordCounts::sorted_items() const {
  std::vector<std::pair<std::string, uint64_t>> items;
  items.reserve(entries_.size());
  for_each([&](std::string_view w, uint64_t c) { items.emplace_back(std::string(w), c); });
  std::sort(items.begin(), items.end());
  return items;
}

void WordCounts::clear() {
  entries_.clear();
  entries_.shrink_to_fit();
  index_.clear();
  index_.shrink_to_fit();
  arena_.clear();
  arena_.shrink_to_fit();
  total_ = 0;
}

}  // namespace bertpt::tokenizer
