// A compact open-addressing set of 64-bit hashes (16 bytes per entry at worst, vs ~40 for
// std::unordered_set): used to remember content hashes of every document for exact dedup.
#pragma once

#include <cstdint>
#include <vector>

namespace bertpt {

class HashSet64 {
 public:
  // Inserts `h`; returns false when it was already present.
  bool insert(uint64_t h) {
    if (h == 0) h = 1;  // 0 marks an empty slot
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots_[i] == h) return false;
      if (slots_[i] == 0) {
        slots_[i] = h;
        ++size_;
        return true;
      }
    }
  }
  size_t size() const { return size_; }

 private:
  void grow() {
    std::vector<uint64_t> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, 0);
    size_ = 0;
    for (uint64_t h : old) {
      if (h) insert(h);
    }
  }
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

}  // namespace bertpt
