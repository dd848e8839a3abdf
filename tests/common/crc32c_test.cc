#include "common/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/test_util.h"

namespace bertpt {
namespace {

using testing::from_hex;

// RFC 3720 (iSCSI) appendix B.4, and the check value of the CRC catalogue.
TEST(Crc32c, Rfc3720Vectors) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  for (int i = 31; i >= 0; --i) descending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
  // An iSCSI read command PDU.
  std::string pdu = from_hex(
      "01c00000000000000000000000000000"
      "14000000000004000000001400000018"
      "28000000000000000200000000000000");
  ASSERT_EQ(pdu.size(), 48u);
  EXPECT_EQ(crc32c(pdu), 0xD9963A56u);
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c("a"), 0xC1D04330u);
}

TEST(Crc32c, ExtendsAcrossPieces) {
  EXPECT_EQ(crc32c("56789", crc32c("1234")), 0xE3069283u);
  EXPECT_EQ(crc32c("", crc32c("123456789")), 0xE3069283u);
  std::string data(1000, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + 7);
  for (size_t cut : {0u, 1u, 7u, 8u, 9u, 500u, 999u, 1000u}) {
    std::string_view v(data);
    EXPECT_EQ(crc32c(v.substr(cut), crc32c(v.substr(0, cut))), crc32c(data)) << cut;
  }
}

// The SSE4.2 instruction and the byte table agree at every length and alignment around the 8-byte
// words the instruction takes.
TEST(Crc32c, HardwareEqualsTable) {
  if (!crc32c_detail::crc32c_hardware_available()) GTEST_SKIP() << "no SSE4.2 crc32 instruction on this CPU";
  std::vector<unsigned char> buf(4096 + 16);
  uint32_t x = 12345;
  for (auto& b : buf) b = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t n : {0u, 1u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 64u, 65u, 1000u, 4096u}) {
      const unsigned char* p = buf.data() + offset;
      EXPECT_EQ(crc32c_detail::crc32c_hardware(p, n, 0), crc32c_detail::crc32c_table(p, n, 0)) << offset << " " << n;
      EXPECT_EQ(crc32c_detail::crc32c_hardware(p, n, 0xDEADBEEF), crc32c_detail::crc32c_table(p, n, 0xDEADBEEF));
    }
  }
  EXPECT_EQ(crc32c_detail::crc32c_table("123456789", 9, 0), 0xE3069283u);
}

}  // namespace
}  // namespace bertpt
