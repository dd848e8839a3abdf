// Rotary embeddings (model/rotary.h): the CPU kernel gives the bits of the ATen formula it replaces,
// forward and backward, in both layouts ModernBERT feeds it (q and k as strided views of one Wqkv
// output: [B, nh, T, hd] against [T, hd] tables, packed tokens [N, nh, hd] against [N, 1, hd]) and
// for bf16 input; the output is contiguous (ATen's elementwise output keeps the strided view's order).
#include "model/rotary.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <functional>
#include <string>

namespace bertpt::model {
namespace {

constexpr int64_t kHeads = 3, kHeadDim = 8;

// A fresh leaf [rows, 3, nh, hd] like Wqkv's output, and q (its first third) in a layout of `view`.
struct Qkv {
  at::Tensor leaf, q;
};

Qkv make_qkv(int64_t rows, const std::function<at::Tensor(const at::Tensor&)>& view, at::ScalarType dtype) {
  at::manual_seed(7);
  Qkv t;
  t.leaf = at::randn({rows, 3, kHeads, kHeadDim}).to(dtype).requires_grad_();
  t.q = view(t.leaf);
  return t;
}

// Runs `rotary` on a fresh q, and backward from a fixed random weighting: the output and q's leaf
// gradient.
std::pair<at::Tensor, at::Tensor> run(const std::function<at::Tensor(const at::Tensor&)>& rotary, int64_t rows,
                                      const std::function<at::Tensor(const at::Tensor&)>& view, at::ScalarType dtype) {
  Qkv t = make_qkv(rows, view, dtype);
  at::Tensor y = rotary(t.q);
  at::manual_seed(11);
  // Weighted through a transpose, so that y's gradient arrives with a strided last dimension.
  const at::Tensor yt = y.to(at::kFloat).transpose(-2, -1);
  (yt * at::randn(yt.sizes())).sum().backward();
  return {y, t.leaf.grad()};
}

void expect_same_bits(const std::function<at::Tensor(const at::Tensor&)>& view, int64_t rows, const at::Tensor& cos,
                      const at::Tensor& sin, at::ScalarType dtype) {
  auto [y, grad] = run([&](const at::Tensor& q) { return apply_rotary(q, cos, sin); }, rows, view, dtype);
  auto [y_ref, grad_ref] = run([&](const at::Tensor& q) { return apply_rotary_aten(q, cos, sin); }, rows, view, dtype);
  EXPECT_EQ(y.scalar_type(), dtype);
  EXPECT_TRUE(at::equal(y, y_ref)) << "forward differs by " << (y - y_ref).abs().max().item<double>();
  EXPECT_TRUE(y.is_contiguous()) << "attention's GEMMs should read q and k without a copy";
  EXPECT_TRUE(at::equal(grad, grad_ref)) << "backward differs by " << (grad - grad_ref).abs().max().item<double>();
  EXPECT_GT(grad.abs().sum().item<double>(), 0.0);
}

// [B, T, 3, nh, hd] viewed as attention's [B, nh, T, hd] query, as ModernBertModel's padded-free path.
at::Tensor batch_query(const at::Tensor& leaf, int64_t B, int64_t T) {
  return leaf.view({B, T, 3, kHeads, kHeadDim}).permute({2, 0, 3, 1, 4}).unbind(0)[0];
}

TEST(Rotary, CpuKernelEqualsTheAtenFormulaOnBatches) {
  const int64_t B = 2, T = 5;
  auto [cos, sin] = rotary_cos_sin(T, kHeadDim, 10000.0, c10::Device(c10::kCPU));
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    SCOPED_TRACE(std::string(c10::toString(dtype)));
    expect_same_bits([&](const at::Tensor& leaf) { return batch_query(leaf, B, T); }, B * T, cos, sin, dtype);
  }
}

TEST(Rotary, CpuKernelEqualsTheAtenFormulaOnPackedTokens) {
  const int64_t N = 7;
  auto [cos, sin] = rotary_cos_sin(6, kHeadDim, 160000.0, c10::Device(c10::kCPU));
  const at::Tensor positions = at::tensor({0, 1, 2, 0, 1, 4, 5}, at::kLong);  // two sequences' columns
  const at::Tensor c = cos.index_select(0, positions).unsqueeze(1), s = sin.index_select(0, positions).unsqueeze(1);
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    SCOPED_TRACE(std::string(c10::toString(dtype)));
    expect_same_bits([](const at::Tensor& leaf) { return leaf.unbind(1)[0]; }, N, c, s, dtype);
  }
}

// The kernel really runs on the CPU (its autograd node), and what it computes is a rotation: each
// (j, j + hd/2) pair keeps its norm.
TEST(Rotary, CpuPathIsTheKernelAndRotates) {
  auto [cos, sin] = rotary_cos_sin(4, kHeadDim, 10000.0, c10::Device(c10::kCPU));
  const at::Tensor x = at::randn({2, kHeads, 4, kHeadDim}).requires_grad_();
  const at::Tensor y = apply_rotary(x, cos, sin);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_NE(y.grad_fn()->name().find("RotaryCpu"), std::string::npos) << y.grad_fn()->name();
  const auto pair_norms = [](const at::Tensor& t) {
    const std::vector<at::Tensor> halves = t.detach().chunk(2, -1);
    return halves[0].square() + halves[1].square();
  };
  EXPECT_TRUE(at::allclose(pair_norms(y), pair_norms(x), 1e-5, 1e-6));
  EXPECT_FALSE(at::allclose(y, x)) << "positions 1..3 must rotate";
}

}  // namespace
}  // namespace bertpt::model
