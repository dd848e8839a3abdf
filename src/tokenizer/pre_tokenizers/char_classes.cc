#include "tokenizer/pre_tokenizers/char_classes.h"

#include <array>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace bertpt::tokenizer::char_classes {
namespace {

struct Run {
  uint32_t first, last;
  uint8_t flags;
};

constexpr Run kRuns[] = {
#include "tokenizer/pre_tokenizers/char_classes_data.inc"
};

constexpr uint32_t kBlockBits = 8;
constexpr uint32_t kBlockSize = 1u << kBlockBits;
constexpr uint32_t kBlocks = 0x110000 >> kBlockBits;

// Two levels: block number -> index of one of the distinct 256-entry blocks. Built once from kRuns
// (a few hundred distinct blocks, about 60 KB).
struct Table {
  std::array<uint16_t, kBlocks> index{};
  std::vector<uint8_t> blocks;

  Table() {
    std::vector<uint8_t> flat(size_t{kBlocks} * kBlockSize, 0);
    for (const Run& r : kRuns) std::memset(&flat[r.first], r.flags, r.last - r.first + 1);
    std::map<std::string, uint16_t> seen;
    for (uint32_t b = 0; b < kBlocks; ++b) {
      std::string block(reinterpret_cast<const char*>(&flat[size_t{b} * kBlockSize]), kBlockSize);
      auto [it, fresh] = seen.emplace(block, uint16_t(seen.size()));
      if (fresh) blocks.insert(blocks.end(), block.begin(), block.end());
      index[b] = it->second;
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

uint8_t lookup(uint32_t cp) {
  if (cp >= 0x110000) return 0;
  const Table& t = table();
  return t.blocks[size_t{t.index[cp >> kBlockBits]} * kBlockSize + (cp & (kBlockSize - 1))];
}

std::vector<std::pair<uint32_t, uint32_t>> ranges_with(Flag flag) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Run& r : kRuns) {
    if (!(r.flags & flag)) continue;
    if (!out.empty() && out.back().second + 1 == r.first) {
      out.back().second = r.last;
    } else {
      out.emplace_back(r.first, r.last);
    }
  }
  return out;
}

}  // namespace bertpt::tokenizer::char_classes
