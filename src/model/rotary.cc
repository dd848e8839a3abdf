#include "model/rotary.h"

#include <algorithm>
#include <array>

#include <ATen/Parallel.h>
#include <c10/util/SmallVector.h>
#include <torch/csrc/autograd/custom_function.h>

#include "model/cpu_kernel.h"

// CMakeLists.txt compiles this file with -ffp-contract=off: the kernel's products must be rounded
// before they are added, as ATen's separate mul and add round them.
namespace bertpt::model {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// rotate_half(x)·sin = cat(-x2, x1)·sin, computed as the halves swapped (a flip, whose backward is a
// flip) times sin with its first half negated: the same numbers, without the two slices and the cat
// whose backward passes allocate and zero-fill a tensor of x's size each.
at::Tensor rotate_half_times(const at::Tensor& x, const at::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  const at::Tensor sign = at::tensor({-1.0f, 1.0f}, sin.options()).view({2, 1});
  const at::Tensor signed_sin = (sin.unflatten(-1, {2, half}) * sign).flatten(-2);
  return x.unflatten(-1, {2, half}).flip(-2).flatten(-2) * signed_sin;
}

// xf·cos + rotate_half(xf)·sin through ATen operations, xf fp32.
at::Tensor rotate_aten(const at::Tensor& xf, const at::Tensor& cos, const at::Tensor& sin) {
  return xf * cos + rotate_half_times(xf, sin);
}

// One row of hd = 2·half values. Forward: y = x·cos + rotate_half(x)·sin, i.e.
//   y[j] = x[j]·c[j] − x[j+half]·s[j],   y[j+half] = x[j+half]·c[j+half] + x[j]·s[j+half];
// its transpose (the backward, applied to the gradient g):
//   dx[j] = g[j]·c[j] + g[j+half]·s[j+half],   dx[j+half] = g[j+half]·c[j+half] − g[j]·s[j].
BERTPT_VECTOR_CLONES void rotate_row(const float* __restrict x, const float* __restrict c, const float* __restrict s,
                                     float* __restrict y, int64_t half) {
  for (int64_t j = 0; j < half; ++j) {
    y[j] = x[j] * c[j] - x[j + half] * s[j];
    y[j + half] = x[j + half] * c[j + half] + x[j] * s[j + half];
  }
}

BERTPT_VECTOR_CLONES void rotate_row_transposed(const float* __restrict g, const float* __restrict c,
                                                const float* __restrict s, float* __restrict dx, int64_t half) {
  for (int64_t j = 0; j < half; ++j) {
    dx[j] = g[j] * c[j] + g[j + half] * s[j + half];
    dx[j + half] = g[j + half] * c[j + half] - g[j] * s[j];
  }
}

// The rows (all dimensions but the last) of same-shaped tensors, walked in row-major order: each
// operand's element offset of the current row, updated like an odometer.
template <size_t N>
class RowCursor {
 public:
  RowCursor(const std::array<const at::Tensor*, N>& tensors, int64_t row) {
    const at::Tensor& t = *tensors[0];
    sizes_.assign(t.sizes().begin(), t.sizes().end() - 1);
    index_.assign(sizes_.size(), 0);
    for (size_t k = 0; k < N; ++k) strides_[k].assign(tensors[k]->strides().begin(), tensors[k]->strides().end() - 1);
    for (size_t d = sizes_.size(); d-- > 0;) {
      index_[d] = row % sizes_[d];
      row /= sizes_[d];
    }
    for (size_t k = 0; k < N; ++k) {
      offsets_[k] = 0;
      for (size_t d = 0; d < sizes_.size(); ++d) offsets_[k] += index_[d] * strides_[k][d];
    }
  }
  int64_t operator[](size_t k) const { return offsets_[k]; }
  void next() {
    for (size_t d = sizes_.size(); d-- > 0;) {
      for (size_t k = 0; k < N; ++k) offsets_[k] += strides_[k][d];
      if (++index_[d] < sizes_[d]) return;
      for (size_t k = 0; k < N; ++k) offsets_[k] -= sizes_[d] * strides_[k][d];
      index_[d] = 0;
    }
  }

 private:
  c10::SmallVector<int64_t, 4> sizes_, index_;
  std::array<c10::SmallVector<int64_t, 4>, N> strides_;
  std::array<int64_t, N> offsets_{};
};

// y = the rotation of `in` (transposed: its backward) by cos/sin, all fp32 on the CPU. y is
// contiguous whatever in's layout (q and k arrive as strided views of the Wqkv output), so that the
// attention GEMMs read them without a copy.
at::Tensor rotate_cpu(const at::Tensor& in, const at::Tensor& cos, const at::Tensor& sin, bool transposed) {
  const at::Tensor x = in.stride(-1) == 1 ? in : in.contiguous();
  at::Tensor y = at::empty(x.sizes(), x.options());
  const int64_t hd = x.size(-1);
  if (x.numel() == 0) return y;
  // Broadcast views (stride 0 where cos/sin repeat); their rows dense like x's.
  const at::Tensor c = (cos.stride(-1) == 1 ? cos : cos.contiguous()).expand(x.sizes());
  const at::Tensor s = (sin.stride(-1) == 1 ? sin : sin.contiguous()).expand(x.sizes());
  const float *xp = x.data_ptr<float>(), *cp = c.data_ptr<float>(), *sp = s.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  const auto row_kernel = transposed ? rotate_row_transposed : rotate_row;
  at::parallel_for(0, x.numel() / hd, std::max<int64_t>(1, 8192 / hd), [&](int64_t begin, int64_t end) {
    RowCursor<4> at_row({&x, &c, &s, &y}, begin);
    for (int64_t r = begin; r < end; ++r, at_row.next()) {
      row_kernel(xp + at_row[0], cp + at_row[1], sp + at_row[2], yp + at_row[3], hd / 2);
    }
  });
  return y;
}

class RotaryCpu : public torch::autograd::Function<RotaryCpu> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
    ctx->save_for_backward({cos, sin});
    return rotate_cpu(x, cos, sin, /*transposed=*/false);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    at::Tensor dx = grads[0].defined() ? rotate_cpu(grads[0], saved[0], saved[1], /*transposed=*/true) : at::Tensor();
    return {dx, at::Tensor(), at::Tensor()};
  }
};

// The CPU kernel takes fp32 tables that need no gradient, and an even head dimension.
bool cpu_kernel_applies(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const auto fp32_cpu = [](const at::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == at::kFloat; };
  return fp32_cpu(x) && fp32_cpu(cos) && fp32_cpu(sin) && !cos.requires_grad() && !sin.requires_grad() &&
         x.dim() >= 1 && x.size(-1) % 2 == 0 && cos.size(-1) == x.size(-1) && sin.size(-1) == x.size(-1);
}

}  // namespace

std::pair<at::Tensor, at::Tensor> rotary_cos_sin(int64_t T, int64_t head_dim, double theta, c10::Device device) {
  const auto f32 = at::TensorOptions().dtype(at::kFloat).device(device);
  at::Tensor inv_freq = 1.0 / at::pow(theta, at::arange(0, head_dim, 2, f32) / double(head_dim));  // [hd/2]
  at::Tensor freqs = at::arange(T, f32).unsqueeze(1) * inv_freq.unsqueeze(0);                      // [T, hd/2]
  at::Tensor emb = at::cat({freqs, freqs}, -1);                                                    // [T, hd]
  return {emb.cos(), emb.sin()};
}

at::Tensor apply_rotary_aten(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  return rotate_aten(x.to(at::kFloat), cos, sin).to(x.scalar_type());
}

at::Tensor apply_rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const at::Tensor xf = x.to(at::kFloat);  // x itself when fp32
  const at::Tensor y = cpu_kernel_applies(xf, cos, sin) ? RotaryCpu::apply(xf, cos, sin) : rotate_aten(xf, cos, sin);
  return y.to(x.scalar_type());
}

}  // namespace bertpt::model
