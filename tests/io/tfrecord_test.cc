#include "io/tfrecord.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::io {
namespace {

using testing::from_hex;

TEST(TfRecord, MaskIsTensorFlows) {
  // masked_crc32c of tensorboard.compat.tensorflow_stub.pywrap_tensorflow.
  EXPECT_EQ(tfrecord_mask(0), 0xa282ead8u);
  EXPECT_EQ(tfrecord_masked_crc(""), 0xa282ead8u);
  EXPECT_EQ(tfrecord_masked_crc("123456789"), 0xc78ab0e5u);
  EXPECT_EQ(tfrecord_masked_crc(std::string("\x0d\0\0\0\0\0\0\0", 8)), 0x34b8373cu);
  for (uint32_t crc : {0u, 1u, 0x8000u, 0xE3069283u, 0xFFFFFFFFu}) EXPECT_EQ(tfrecord_unmask(tfrecord_mask(crc)), crc);
}

// The bytes tensorboard.summary.writer.record_writer.RecordWriter writes for the records
// "brain.Event:2" and "" (little-endian length, masked CRCs of the length and of the data).
TEST(TfRecord, FramingEqualsTensorBoardsRecordWriter) {
  std::string out;
  append_tfrecord(out, "brain.Event:2");
  append_tfrecord(out, "");
  EXPECT_EQ(out, from_hex("0d000000000000003c37b834627261696e2e4576656e743a32ee01067c"
                          "000000000000000029039807d8ea82a2"));
  EXPECT_EQ(out.size(), 13 + 2 * kTfRecordOverhead);
}

TEST(TfRecord, ParsesBackAndStopsAtAnIncompleteRecord) {
  std::string file;
  std::vector<std::string> records = {"first", "", std::string(300, '\xab'), std::string("nul\0inside", 10)};
  for (const auto& r : records) append_tfrecord(file, r);
  TfRecords all = parse_tfrecords(file, "f");
  EXPECT_EQ(all.records, records);
  EXPECT_EQ(all.truncated_tail, 0u);
  // Cut anywhere inside the last record: the complete ones are read, the rest is a truncated tail.
  size_t last = 10 + kTfRecordOverhead;
  size_t start = file.size() - last;
  for (size_t cut = start; cut < file.size(); ++cut) {
    TfRecords part = parse_tfrecords(std::string_view(file).substr(0, cut), "f");
    EXPECT_EQ(part.records, std::vector<std::string>(records.begin(), records.end() - 1)) << cut;
    EXPECT_EQ(part.truncated_tail, cut - start);
  }
}

TEST(TfRecord, DamagedCrcNamesTheFileAndOffset) {
  std::string file;
  append_tfrecord(file, "one");
  append_tfrecord(file, "two");
  std::string bad_data = file;
  bad_data[3 + kTfRecordOverhead + 12] ^= 1;  // a byte of "two"
  try {
    parse_tfrecords(bad_data, "run/events.out.tfevents.1");
    FAIL() << "no error";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("run/events.out.tfevents.1: TFRecord at byte 19: the data's CRC"),
              std::string::npos)
        << e.what();
  }
  std::string bad_length = file;
  bad_length[0] ^= 1;
  EXPECT_THROW(parse_tfrecords(bad_length, "f"), BadInput);
}

}  // namespace
}  // namespace bertpt::io
