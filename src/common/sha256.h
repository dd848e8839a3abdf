// SHA-256 (FIPS 180-4), for the checksums recorded in manifests: a dataset names the exact
// tokenizer and shards it was built from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bertpt {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Lower-case hex digest; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);
  uint32_t h_[8];
  unsigned char buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);
// Digest of a whole file; throws BadInput naming it when unreadable.
std::string sha256_file(const std::string& path);

}  // namespace bertpt
