#include "model/top1_hits.h"

#include <algorithm>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "model/cpu_kernel.h"

namespace bertpt::model {

namespace {

// Whether any of x[0, n) fails `keeps(x[i])`, checked 64 at a time (each block a vectorizable
// reduction) and stopping at the first block with a failure.
template <typename T, typename Keeps>
bool any_fails(const T* x, int64_t n, Keeps keeps) {
  for (int64_t begin = 0; begin < n; begin += 64) {
    const int64_t end = std::min(n, begin + 64);
    bool failed = false;
    for (int64_t i = begin; i < end; ++i) failed |= !keeps(x[i]);
    if (failed) return true;
  }
  return false;
}

// Whether argmax(x[0, V)) == t, argmax taking the first maximum and NaN as the maximum: a NaN label
// logit wins when no NaN comes before it; a number wins when every logit before it is smaller and
// none after it is larger (a NaN anywhere fails both comparisons, as it would win).
template <typename T>
bool is_top1(const T* x, int64_t V, int64_t t) {
  if (t < 0 || t >= V) return false;
  const T v = x[t];
  if (v != v) return !any_fails(x, t, [](T y) { return y == y; });
  return !any_fails(x, t, [v](T y) { return y < v; }) && !any_fails(x + t + 1, V - t - 1, [v](T y) { return y <= v; });
}

template <typename T>
int64_t count_top1_cpu(const at::Tensor& logits, const at::Tensor& target) {
  const int64_t M = logits.size(0), V = logits.size(1);
  const T* x = logits.data_ptr<T>();
  const int64_t* t = target.data_ptr<int64_t>();
  std::vector<uint8_t> hit(size_t(M), 0);
  at::parallel_for(0, M, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) hit[size_t(r)] = is_top1(x + r * V, V, t[r]);
  });
  int64_t hits = 0;
  for (uint8_t h : hit) hits += h;
  return hits;
}

}  // namespace

at::Tensor top1_hits(const at::Tensor& logits, const at::Tensor& target) {
  const bool cpu_kernel = logits.device().is_cpu() && logits.dim() == 2 &&
                          (logits.scalar_type() == at::kFloat || logits.scalar_type() == at::kDouble) &&
                          target.dim() == 1 && target.size(0) == logits.size(0) && target.scalar_type() == at::kLong;
  if (!cpu_kernel) return logits.argmax(-1).eq(target).sum();
  const at::Tensor x = logits.contiguous(), t = target.contiguous();
  const int64_t hits = x.scalar_type() == at::kFloat ? count_top1_cpu<float>(x, t) : count_top1_cpu<double>(x, t);
  return at::scalar_tensor(hits, at::TensorOptions().dtype(at::kLong));
}

}  // namespace bertpt::model
