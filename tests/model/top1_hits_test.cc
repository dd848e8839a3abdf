// top1_hits (model/top1_hits.h) counts exactly the rows whose ATen argmax is the label: random rows,
// rows with tied maxima on either side of the label, NaNs before, at and after it, ignored (-100) and
// out-of-range labels, in fp32 and fp64, over rows longer than one scan block.
#include "model/top1_hits.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <limits>

namespace bertpt::model {
namespace {

int64_t reference(const at::Tensor& logits, const at::Tensor& target) {
  return logits.argmax(-1).eq(target).sum().item<int64_t>();
}

// Rows of V logits with few distinct values (many ties), labels mostly at a maximum.
std::pair<at::Tensor, at::Tensor> tie_heavy(int64_t M, int64_t V, at::ScalarType dtype) {
  at::Tensor logits = at::randint(0, 4, {M, V}).to(dtype);
  at::Tensor target = logits.argmax(-1);
  at::Tensor shift = at::randint(-3, 4, {M});  // labels before, at and after the first maximum
  target = (target + shift).clamp(0, V - 1);
  return {logits, target};
}

TEST(Top1Hits, EqualsArgmaxOnTiesAndRandomRows) {
  at::manual_seed(3);
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    for (int64_t V : {1, 7, 64, 65, 300}) {
      auto [logits, target] = tie_heavy(97, V, dtype);
      EXPECT_EQ(top1_hits(logits, target).item<int64_t>(), reference(logits, target)) << "V " << V;
      at::Tensor random = at::randn({97, V}).to(dtype);
      at::Tensor labels = at::where(at::rand({97}) < 0.5, random.argmax(-1), at::randint(0, V, {97}));
      EXPECT_EQ(top1_hits(random, labels).item<int64_t>(), reference(random, labels)) << "V " << V;
    }
  }
}

TEST(Top1Hits, NansIgnoredLabelsAndShape) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  at::Tensor logits = at::zeros({6, 130});
  logits[0][100] = 5;  // label 100 is the maximum: hit
  logits[1][100] = 5;  // an equal maximum before the label: miss
  logits[1][3] = 5;
  logits[2][100] = 5;  // an equal maximum after it: hit
  logits[2][120] = 5;
  logits[3][100] = nan;  // a NaN label logit, the first NaN: hit
  logits[4][100] = nan;  // an earlier NaN wins: miss
  logits[4][70] = nan;
  logits[5][100] = 5;  // a NaN after the label wins: miss
  logits[5][129] = nan;
  at::Tensor target = at::full({6}, 100, at::kLong);
  EXPECT_EQ(top1_hits(logits, target).item<int64_t>(), reference(logits, target));
  EXPECT_EQ(top1_hits(logits, target).item<int64_t>(), 3);
  at::Tensor ignored = at::tensor({100, -100, 100, 130, 100, 100}, at::kLong);
  EXPECT_EQ(top1_hits(logits, ignored).item<int64_t>(), reference(logits, ignored));
  const at::Tensor hits = top1_hits(logits, target);
  EXPECT_EQ(hits.dim(), 0);
  EXPECT_EQ(hits.scalar_type(), at::kLong);
  EXPECT_EQ(top1_hits(logits.narrow(0, 0, 0), target.narrow(0, 0, 0)).item<int64_t>(), 0);
}

}  // namespace
}  // namespace bertpt::model
