// serde_float.h: numbers read as tokenizers' serde_json reads them. The expected values are what
// tokenizers 0.23.3 holds after Tokenizer.from_str of a Unigram whose scores are the inputs (its
// to_str then writes them back), found with the peer; equal ones show it keeps most numbers.
#include "tokenizer/serde_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace bertpt::tokenizer {
namespace {

TEST(SerdeFloat, RoundsAsSerdeJsonDoes) {
  const std::pair<double, double> cases[] = {
      {-10.231468900900257, -10.231468900900255},
      {-13.916657447814941, -13.91665744781494},
      {-9.391491627785105e-07, -9.391491627785104e-07},
      {-9.690406502940995e-30, -9.690406502940996e-30},
      {-19.044889450073242, -19.04488945007324},
      {-10.942081414908019, -10.94208141490802},
      {-12.345678901234567, -12.345678901234567},
      {-7.000000000000001, -7.000000000000001},
      {-0.1, -0.1},
      {-1e-05, -1e-05},
      {-123456.78901234567, -123456.78901234567},
      {-9.87654321e-07, -9.87654321e-07},
  };
  for (const auto& [written, read] : cases) EXPECT_EQ(serde_json_f64(written), read) << written;
}

TEST(SerdeFloat, ZeroAndNonFiniteUnchanged) {
  EXPECT_EQ(serde_json_f64(0.0), 0.0);
  EXPECT_TRUE(std::signbit(serde_json_f64(-0.0)));
  EXPECT_TRUE(std::isinf(serde_json_f64(-std::numeric_limits<double>::infinity())));
  EXPECT_TRUE(std::isnan(serde_json_f64(std::numeric_limits<double>::quiet_NaN())));
}

}  // namespace
}  // namespace bertpt::tokenizer
