// TFRecord framing, the container of TensorBoard event files (io/tfevents.h). Each record is
//   u64 LE  length of data
//   u32 LE  masked CRC-32C of those 8 length bytes
//   data
//   u32 LE  masked CRC-32C of data
// with mask(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8 (tensorflow/core/lib/hash/crc32c.h).
// Plain C++ (no LibTorch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bertpt::io {

inline constexpr size_t kTfRecordOverhead = 8 + 4 + 4;  // framing bytes around each record's data

uint32_t tfrecord_mask(uint32_t crc);
uint32_t tfrecord_unmask(uint32_t masked);
// The masked CRC-32C of `bytes`, as the framing stores it.
uint32_t tfrecord_masked_crc(std::string_view bytes);

// Appends one framed record holding `data` to `out`.
void append_tfrecord(std::string& out, std::string_view data);

struct TfRecords {
  std::vector<std::string> records;
  // Bytes at the end that do not make a complete record (a writer stopped in the middle of one);
  // TensorFlow's and TensorBoard's readers stop there too.
  size_t truncated_tail = 0;
};

// The records of a TFRecord file's bytes. A CRC that does not match throws BadInput naming `name`
// and the record's offset; an incomplete last record is not an error (see truncated_tail).
TfRecords parse_tfrecords(std::string_view bytes, const std::string& name);

}  // namespace bertpt::io
