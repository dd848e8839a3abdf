// The hash of the models' open-addressing tables (models/wordpiece.cc, models/bpe.cc): fast for short
// keys (tokens and words are mostly < 16 bytes); its quality only affects speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bertpt::tokenizer {

inline uint32_t key_hash(const char* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull);
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ v) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t v = 0;
    std::memcpy(&v, p, n);
    h = (h ^ v) * 0xC2B2AE3D27D4EB4Full;
  }
  h ^= h >> 32;
  h *= 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(h >> 32);
}

}  // namespace bertpt::tokenizer
