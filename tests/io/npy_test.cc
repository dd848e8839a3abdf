#include "io/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace bertpt::io {
namespace {

uint16_t header_length(const std::string& f) { return uint16_t(uint8_t(f[8]) | uint8_t(f[9]) << 8); }

TEST(Npy, HeaderIsNumpysVersion1Layout) {
  const int64_t data[6] = {1, -2, 3, -100, 5, 1LL << 40};
  const std::string f = npy_bytes("<i8", {2, 3}, data, sizeof data);
  ASSERT_EQ(f.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t h = header_length(f);
  EXPECT_EQ((10 + h) % 64, 0u);  // numpy aligns the data to 64 bytes
  const std::string header = f.substr(10, h);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(header.rfind("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u) << header;
  ASSERT_EQ(f.size(), 10 + h + sizeof data);
  int64_t back[6];
  std::memcpy(back, f.data() + 10 + h, sizeof back);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(back[i], data[i]);
}

TEST(Npy, ShapeTupleIsPythonsRepr) {
  const float x = 1.5f;
  EXPECT_NE(npy_bytes("<f4", {1}, &x, 4).find("'shape': (1,), }"), std::string::npos);
  EXPECT_NE(npy_bytes("<f4", {}, &x, 4).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(npy_bytes("<f4", {0, 7}, nullptr, 0).find("'shape': (0, 7), }"), std::string::npos);
}

}  // namespace
}  // namespace bertpt::io
