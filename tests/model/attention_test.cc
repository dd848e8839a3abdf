// Attention over packed sequences (model/attention.h): equal, values and gradients, to attending to
// each sequence alone; the length groups of the CPU path cover every row once, and waste no
// attention when the batch has few distinct lengths.
#include "model/attention.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <set>
#include <vector>

namespace bertpt::model {
namespace {

const c10::Device kCpu(c10::kCPU);

// Each sequence of q, k, v ([N, nh, hd]) attended to on its own ([1, nh, L, hd]), packed again.
at::Tensor each_alone(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                      const std::vector<int64_t>& lengths, int64_t half_window) {
  std::vector<at::Tensor> out;
  int64_t start = 0;
  for (int64_t L : lengths) {
    if (L == 0) continue;
    auto one = [&](const at::Tensor& t) { return t.narrow(0, start, L).transpose(0, 1).unsqueeze(0); };
    at::Tensor mask = half_window >= 0 ? sliding_window_mask(L, half_window, at::Tensor(), kCpu) : at::Tensor();
    out.push_back(attend(one(q), one(k), one(v), mask, 0.0, AttentionKernel::Explicit).squeeze(0).transpose(0, 1));
    start += L;
  }
  return at::cat(out);
}

TEST(Attention, PackedEqualsEachSequenceAlone) {
  at::manual_seed(3);
  const std::vector<int64_t> lengths{7, 0, 12, 3, 12, 1, 9, 5, 11};  // more lengths than groups
  const int64_t N = 60, half_window = 2;
  const PackedSequences seqs = pack_sequences(lengths, half_window, kCpu);
  EXPECT_EQ(seqs.offsets.back(), N);
  EXPECT_EQ(seqs.max_length, 12);
  for (bool windowed : {false, true}) {
    for (AttentionKernel kernel : {AttentionKernel::Explicit, AttentionKernel::Fused}) {
      at::Tensor q = at::randn({N, 2, 8}).requires_grad_(), k = at::randn({N, 2, 8}).requires_grad_();
      at::Tensor v = at::randn({N, 2, 8}).requires_grad_();
      at::Tensor w = at::randn({N, 2, 8});  // a loss that weighs every output differently
      at::Tensor packed = attend_packed(q, k, v, seqs, windowed, 0.0, kernel);
      at::Tensor alone = each_alone(q, k, v, lengths, windowed ? half_window : -1);
      ASSERT_EQ(packed.sizes(), alone.sizes());
      EXPECT_TRUE(at::allclose(packed, alone, 1e-5, 1e-6)) << "windowed " << windowed;
      auto grads = [&](const at::Tensor& out) {
        for (at::Tensor* t : {&q, &k, &v}) t->mutable_grad() = at::Tensor();
        (out * w).sum().backward();
        return at::cat({q.grad(), k.grad(), v.grad()});
      };
      EXPECT_TRUE(at::allclose(grads(packed), grads(alone), 1e-5, 1e-6)) << "windowed " << windowed;
    }
  }
  // The window matters at these lengths.
  at::Tensor q = at::randn({N, 2, 8}), k = at::randn({N, 2, 8}), v = at::randn({N, 2, 8});
  EXPECT_FALSE(at::allclose(attend_packed(q, k, v, seqs, true, 0.0, AttentionKernel::Auto),
                            attend_packed(q, k, v, seqs, false, 0.0, AttentionKernel::Auto)));
}

TEST(Attention, LengthGroupsCoverEveryRowOnce) {
  at::manual_seed(4);
  std::vector<int64_t> lengths;
  for (int i = 0; i < 40; ++i) lengths.push_back(at::randint(0, 30, {1}).item<int64_t>());
  const PackedSequences seqs = pack_sequences(lengths, -1, kCpu);
  const int64_t N = seqs.offsets.back();
  ASSERT_GE(seqs.groups.size(), 1u);
  EXPECT_LE(seqs.groups.size(), 4u);
  int64_t area = 0, previous_length = seqs.max_length + 1;
  for (const auto& g : seqs.groups) {
    EXPECT_LT(g.length, previous_length) << "groups go from the longest down";
    previous_length = g.length;
    EXPECT_EQ(g.rows.numel(), g.slots.numel());
    EXPECT_LT(g.slots.max().item<int64_t>(), g.count * g.length);
    area += g.count * g.length * g.length;
  }
  std::vector<int64_t> rows(seqs.group_rows.data_ptr<int64_t>(), seqs.group_rows.data_ptr<int64_t>() + N);
  std::sort(rows.begin(), rows.end());
  for (int64_t r = 0; r < N; ++r) ASSERT_EQ(rows[size_t(r)], r) << "every packed row once";
  // Fewer attention scores than one batch padded to the longest.
  int64_t nonempty = 0;
  for (int64_t L : lengths) nonempty += L > 0;
  EXPECT_LT(area, nonempty * seqs.max_length * seqs.max_length);

  // Four distinct lengths: four groups, no padding at all.
  const PackedSequences four = pack_sequences({5, 9, 5, 2, 9, 7, 2}, -1, kCpu);
  ASSERT_EQ(four.groups.size(), 4u);
  for (const auto& g : four.groups) EXPECT_FALSE(g.padding.defined()) << "length " << g.length;
}

}  // namespace
}  // namespace bertpt::model
