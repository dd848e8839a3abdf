#include "common/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define BERTPT_CRC32C_SSE42 1
#endif

namespace bertpt {
namespace crc32c_detail {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // 0x1EDC6F41 bit-reversed

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32c_table(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  for (size_t i = 0; i < size; ++i) c = kTable[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return ~c;
}

#ifdef BERTPT_CRC32C_SSE42

bool crc32c_hardware_available() { return __builtin_cpu_supports("sse4.2"); }

__attribute__((target("sse4.2"))) uint32_t crc32c_hardware(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t c = ~crc;
  for (; size >= 8; p += 8, size -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // unaligned, little-endian: the byte order the instruction expects
    c = _mm_crc32_u64(c, word);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; size > 0; ++p, --size) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}

#else

bool crc32c_hardware_available() { return false; }
uint32_t crc32c_hardware(const void* data, size_t size, uint32_t crc) { return crc32c_table(data, size, crc); }

#endif

}  // namespace crc32c_detail

uint32_t crc32c(const void* data, size_t size, uint32_t crc) {
  static const bool hardware = crc32c_detail::crc32c_hardware_available();
  return hardware ? crc32c_detail::crc32c_hardware(data, size, crc) : crc32c_detail::crc32c_table(data, size, crc);
}

}  // namespace bertpt
