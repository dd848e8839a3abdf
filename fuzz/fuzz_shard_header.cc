// A shard file of arbitrary bytes: the header (magic, version, id width, seq_len, rows, real tokens)
// and the ids behind it. Opening must either refuse it with BadInput or give a reader whose every
// row lies inside the file (a header whose sizes overflow 64 bits must not pass the size check).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.h"
#include "data/shard.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string path = [] {
    char tmpl[] = "/tmp/bertpt-fuzz-shard-XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    return std::string(tmpl);
  }();
  // Most inputs get a valid magic and version, so the fuzzer spends its time on the sizes.
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (size >= 12 && (data[0] & 1)) {
    bytes.replace(0, 8, bertpt::data::kShardMagic, 8);
    bytes[8] = 1, bytes[9] = 0, bytes[10] = 0, bytes[11] = 0;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  try {
    bertpt::data::ShardReader reader(path);
    const uint64_t row_bytes = uint64_t(reader.seq_len()) * reader.header().bytes_per_id;
    if (bertpt::data::kShardHeaderBytes + reader.rows() * row_bytes != bytes.size()) std::abort();
    std::vector<uint32_t> row(reader.seq_len());
    for (uint64_t r = 0; r < reader.rows(); ++r) reader.read_row(r, row.data());
  } catch (const bertpt::BadInput&) {
  }
  return 0;
}
