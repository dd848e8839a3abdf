#include "io/tfrecord.h"

#include "common/crc32c.h"
#include "common/error.h"

namespace bertpt::io {
namespace {

constexpr uint32_t kMaskDelta = 0xa282ead8u;

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t get_le(std::string_view bytes, size_t offset, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return v;
}

}  // namespace

uint32_t tfrecord_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

uint32_t tfrecord_unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

uint32_t tfrecord_masked_crc(std::string_view bytes) { return tfrecord_mask(crc32c(bytes)); }

void append_tfrecord(std::string& out, std::string_view data) {
  out.reserve(out.size() + data.size() + kTfRecordOverhead);
  size_t header = out.size();
  put_le(out, data.size(), 8);
  put_le(out, tfrecord_masked_crc(std::string_view(out).substr(header, 8)), 4);
  out.append(data);
  put_le(out, tfrecord_masked_crc(data), 4);
}

TfRecords parse_tfrecords(std::string_view bytes, const std::string& name) {
  TfRecords result;
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t left = bytes.size() - pos;
    if (left < 12) break;
    uint64_t length = get_le(bytes, pos, 8);
    if (uint32_t(get_le(bytes, pos + 8, 4)) != tfrecord_masked_crc(bytes.substr(pos, 8))) {
      throw BadInput(name + ": TFRecord at byte " + std::to_string(pos) + ": the length's CRC does not match",
                     "the file is damaged");
    }
    if (length > left - 12 || left - 12 - length < 4) break;
    std::string_view data = bytes.substr(pos + 12, length);
    if (uint32_t(get_le(bytes, pos + 12 + length, 4)) != tfrecord_masked_crc(data)) {
      throw BadInput(name + ": TFRecord at byte " + std::to_string(pos) + ": the data's CRC does not match",
                     "the file is damaged");
    }
    result.records.emplace_back(data);
    pos += 12 + length + 4;
  }
  result.truncated_tail = bytes.size() - pos;
  return result;
}

}  // namespace bertpt::io
