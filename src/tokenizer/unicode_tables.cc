#include "tokenizer/unicode_tables.h"

#include <algorithm>
#include <iterator>

namespace bertpt::tokenizer::unicode {

// Defines kStage1, kStage2, kRecords, kPool (declared in the header) and kSurvivorCcc.
#include "tokenizer/unicode_tables_data.inc"

static_assert(sizeof(kStage1) / sizeof(kStage1[0]) == (0x110000 >> kBlockShift));

uint8_t survivor_ccc(uint32_t cp) {
  const auto* begin = std::begin(kSurvivorCcc);
  const auto* end = std::end(kSurvivorCcc);
  const auto* it = std::lower_bound(begin, end, cp, [](const CccEntry& e, uint32_t c) { return e.cp < c; });
  return it != end && it->cp == cp ? it->ccc : 0;
}

}  // namespace bertpt::tokenizer::unicode
