#include "common/hash.h"

#include <cstring>

namespace bertpt {

namespace {

inline uint64_t load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline uint64_t mum(uint64_t a, uint64_t b) {
  __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;

}  // namespace

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t hash64(std::string_view data, uint64_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  uint64_t h = seed ^ kP0 ^ mix64(n);
  while (n >= 16) {
    h = mum(load64(p) ^ kP1 ^ h, load64(p + 8) ^ kP2);
    p += 16;
    n -= 16;
  }
  unsigned char tail[16] = {0};
  std::memcpy(tail, p, n);
  h = mum(load64(tail) ^ kP1 ^ h, load64(tail + 8) ^ kP2 ^ n);
  return mix64(h);
}

}  // namespace bertpt
