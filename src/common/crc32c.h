// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78; RFC 3720 §B.4), the checksum of TFRecord
// files (io/tfrecord.h). The SSE4.2 `crc32` instruction computes it where the CPU has one (checked
// once at run time); elsewhere a byte table does. No Debian 12 C++ library ships it, hence this file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bertpt {

// CRC-32C of `size` bytes. `crc` is the CRC of the bytes before them (0 for none), so that
// crc32c(b, crc32c(a)) == crc32c(a + b).
uint32_t crc32c(const void* data, size_t size, uint32_t crc);
inline uint32_t crc32c(std::string_view bytes, uint32_t crc = 0) { return crc32c(bytes.data(), bytes.size(), crc); }

namespace crc32c_detail {
// The two implementations behind crc32c(), for the tests that compare them. crc32c_hardware may
// only be called when crc32c_hardware_available().
uint32_t crc32c_table(const void* data, size_t size, uint32_t crc);
bool crc32c_hardware_available();
uint32_t crc32c_hardware(const void* data, size_t size, uint32_t crc);
}  // namespace crc32c_detail

}  // namespace bertpt
