#include "model/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <ATen/ATen.h>

#include "model/ops.h"
#include "model/torch_compat.h"

namespace bertpt::model {

namespace {

// -(2 - 2^-7) · 2^127: the lowest finite bf16, exactly representable in fp32.
constexpr double kLowest = -3.3895313892515355e38;

}  // namespace

AttentionKernel attention_kernel_named(const std::string& name) {
  if (name == "fused") return AttentionKernel::Fused;
  if (name == "explicit") return AttentionKernel::Explicit;
  return AttentionKernel::Auto;
}

AttentionKernel resolve_attention(AttentionKernel kernel, c10::DeviceType device_type) {
  if (kernel != AttentionKernel::Auto) return kernel;
  return torch_compat::has_fused_sdpa(device_type) ? AttentionKernel::Fused : AttentionKernel::Explicit;
}

std::string attention_kernel_name(AttentionKernel kernel, c10::DeviceType device_type) {
  return resolve_attention(kernel, device_type) == AttentionKernel::Fused ? "fused" : "explicit";
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& additive_mask,
                  double p, AttentionKernel kernel) {
  if (resolve_attention(kernel, q.device().type()) == AttentionKernel::Fused) {
    return torch_compat::scaled_dot_product_attention(q, k, v, additive_mask, p);
  }
  const int64_t hd = q.size(-1);
  // Scaling q ([B, nh, T, hd]) instead of the scores ([B, nh, T, T]) is cheaper when T > hd; the
  // output keeps q's layout (contiguous from ModernBERT's CPU rotary, model/rotary.h).
  at::Tensor scores = at::matmul(q * (1.0 / std::sqrt(static_cast<double>(hd))), k.transpose(-2, -1));  // [B, nh, T, T]
  if (additive_mask.defined()) scores = scores + additive_mask;  // fp32 mask promotes bf16 scores
  // Softmax in fp32 whatever the autocast state (1.13's CPU autocast would keep it in bf16).
  at::Tensor probs = at::softmax(scores, -1, ops::accumulate_type(scores));  // [B, nh, T, T]
  // Dropout after the cast to v's dtype (bf16 under autocast): half the bytes to mask.
  probs = ops::dropout(probs.to(v.scalar_type()), p, p > 0.0);
  return at::matmul(probs, v);
}

namespace {

// At most this many length groups per batch (attend_packed's CPU path).
constexpr int64_t kMaxGroups = 4;

// Splits `sorted` (lengths, longest first) into at most kMaxGroups runs minimising the padded
// attention area sum(count · longest²) (dynamic programming). Returns each run's end.
std::vector<size_t> group_ends(const std::vector<int64_t>& sorted) {
  const size_t S = sorted.size();
  const size_t K = std::min<size_t>(S, size_t(kMaxGroups));
  auto area = [&](size_t from, size_t to) { return double(to - from) * double(sorted[from]) * double(sorted[from]); };
  // best[k][i]: the least area of sorted[0, i) in k runs; cut[k][i]: where its last run starts.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(K + 1, std::vector<double>(S + 1, inf));
  std::vector<std::vector<size_t>> cut(K + 1, std::vector<size_t>(S + 1, 0));
  best[0][0] = 0;
  for (size_t k = 1; k <= K; ++k) {
    for (size_t i = 1; i <= S; ++i) {
      for (size_t j = k - 1; j < i; ++j) {
        const double a = best[k - 1][j] + area(j, i);
        if (a < best[k][i]) best[k][i] = a, cut[k][i] = j;
      }
    }
  }
  std::vector<size_t> ends;
  for (size_t k = K, i = S; k > 0 && i > 0; i = cut[k][i], --k) ends.insert(ends.begin(), i);
  return ends;
}

}  // namespace

PackedSequences pack_sequences(const std::vector<int64_t>& lengths, int64_t half_window, c10::Device device) {
  PackedSequences seqs;
  seqs.half_window = half_window;
  seqs.offsets.push_back(0);
  for (int64_t n : lengths) {
    seqs.offsets.push_back(seqs.offsets.back() + n);
    seqs.max_length = std::max(seqs.max_length, n);
  }
  std::vector<int32_t> cu(seqs.offsets.begin(), seqs.offsets.end());
  seqs.cu_seqlens = at::tensor(cu, at::kInt).to(device);

  std::vector<int64_t> order;  // the non-empty sequences, longest first
  for (size_t s = 0; s < lengths.size(); ++s)
    if (lengths[s] > 0) order.push_back(int64_t(s));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });
  std::vector<int64_t> sorted;
  for (int64_t s : order) sorted.push_back(lengths[s]);
  size_t from = 0;
  std::vector<at::Tensor> all_rows;
  for (size_t end : group_ends(sorted)) {
    PackedSequences::Group g;
    g.count = int64_t(end - from), g.length = sorted[from];
    std::vector<int64_t> rows, slots;
    at::Tensor keep = at::zeros({g.count, g.length}, at::kLong);
    for (int64_t j = 0; j < g.count; ++j) {
      const int64_t s = order[from + size_t(j)];
      for (int64_t t = 0; t < lengths[s]; ++t) rows.push_back(seqs.offsets[s] + t), slots.push_back(j * g.length + t);
      keep[j].narrow(0, 0, lengths[s]).fill_(1);
    }
    g.rows = at::tensor(rows, at::kLong).to(device);
    g.slots = at::tensor(slots, at::kLong).to(device);
    if (int64_t(rows.size()) < g.count * g.length) g.padding = additive_attention_mask(keep.to(device));
    g.window = half_window >= 0 && g.length - 1 > half_window
                   ? sliding_window_mask(g.length, half_window, g.padding, device)
                   : g.padding;
    all_rows.push_back(g.rows);
    seqs.groups.push_back(std::move(g));
    from = end;
  }
  if (!all_rows.empty()) seqs.group_rows = at::cat(all_rows);
  return seqs;
}

at::Tensor attend_packed(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const PackedSequences& seqs,
                         bool windowed, double p, AttentionKernel kernel) {
  const int64_t half_window = windowed ? seqs.half_window : -1;
  if (resolve_attention(kernel, q.device().type()) == AttentionKernel::Fused &&
      torch_compat::has_flash_varlen(q, half_window >= 0)) {
    return torch_compat::flash_attention_varlen(q, k, v, seqs.cu_seqlens, seqs.max_length, half_window, p);
  }
  if (seqs.groups.empty()) return at::zeros_like(q);  // no tokens
  const int64_t nh = q.size(1), hd = q.size(2);
  const at::Tensor qkv = at::stack({q, k, v}, 1);  // [N, 3, nh, hd]
  std::vector<at::Tensor> outputs;
  for (const PackedSequences::Group& g : seqs.groups) {
    at::Tensor padded = at::zeros({g.count * g.length, 3, nh, hd}, qkv.options())
                            .index_copy(0, g.slots, qkv.index_select(0, g.rows))
                            .view({g.count, g.length, 3, nh, hd})
                            .permute({2, 0, 3, 1, 4});  // [3, count, nh, length, hd]
    at::Tensor o = attend(padded[0], padded[1], padded[2], windowed ? g.window : g.padding, p, kernel);
    outputs.push_back(o.transpose(1, 2).reshape({g.count * g.length, nh, hd}).index_select(0, g.slots));
  }
  return at::zeros_like(q).index_copy(0, seqs.group_rows, at::cat(outputs));  // [N, nh, hd]
}

at::Tensor additive_attention_mask(const at::Tensor& attention_mask) {
  at::Tensor keep = attention_mask.to(at::kFloat);            // [B, T]
  return ((1.0 - keep) * kLowest).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, T]
}

at::Tensor sliding_window_mask(int64_t T, int64_t half_window, const at::Tensor& padding, c10::Device device) {
  at::Tensor pos = at::arange(T, at::TensorOptions().dtype(at::kLong).device(device));
  at::Tensor outside = (pos.unsqueeze(1) - pos.unsqueeze(0)).abs().gt(half_window);  // [T, T]
  at::Tensor band = outside.to(at::kFloat) * kLowest;                                // [T, T]
  band = band.unsqueeze(0).unsqueeze(0);                                             // [1, 1, T, T]
  // Both masked: the sum would overflow to -inf; clamp keeps it the finite lowest value.
  return padding.defined() ? (band + padding).clamp_min(kLowest) : band;
}

}  // namespace bertpt::model
