#include "model/ops.h"

#include <cstdint>
#include <limits>
#include <type_traits>

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include "model/torch_compat.h"

namespace bertpt::model::ops {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// ---- linear

class MixedLinear : public torch::autograd::Function<MixedLinear> {
 public:
  // x: [N, in] (already flattened), w: [out, in], b: [out] or undefined.
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                            c10::ScalarType compute) {
    at::Tensor xc = x.to(compute).contiguous();  // [N, in]
    at::Tensor wc = w.to(compute);               // [out, in]
    at::Tensor y = b.defined() ? at::addmm(b.to(compute), xc, wc.t()) : at::mm(xc, wc.t());  // [N, out]
    ctx->save_for_backward({xc, wc});
    ctx->saved_data["x_dtype"] = static_cast<int64_t>(x.scalar_type());
    ctx->saved_data["w_dtype"] = static_cast<int64_t>(w.scalar_type());
    ctx->saved_data["b_dtype"] = static_cast<int64_t>(b.defined() ? b.scalar_type() : w.scalar_type());
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const at::Tensor& xc = saved[0];  // [N, in]
    const at::Tensor& wc = saved[1];  // [out, in]
    at::Tensor dy = grads[0].to(wc.scalar_type()).contiguous();  // [N, out]
    auto dtype = [&](const char* key) { return static_cast<c10::ScalarType>(ctx->saved_data[key].toInt()); };
    at::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) dx = at::mm(dy, wc).to(dtype("x_dtype"));  // [N, in]
    // dyᵀ·x is [out, in] and contiguous: the layout .grad wants, no transposed copy.
    if (ctx->needs_input_grad(1)) dw = at::mm(dy.t(), xc).to(dtype("w_dtype"));
    // ATen's sum accumulates bf16 in fp32 internally; only the result is rounded (as with autocast).
    if (ctx->needs_input_grad(2)) db = dy.sum(0).to(dtype("b_dtype"));
    return {dx, dw, db, at::Tensor()};
  }
};

// ---- dropout

// "lowbias32" integer hash (Chris Wellons): cheap, vectorizes, good avalanche.
inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

struct MaskKey {
  uint32_t k1, k2;
  uint32_t threshold;  // drop when the element's 16 random bits are < threshold
  double scale;        // 1 / (1 - p)
};

// out[i] = keep(i) ? in[i] * scale : 0 for contiguous buffers. Elements 2j and 2j+1 use the low and
// high 16 bits of one hash of the pair index j.
template <typename T>
void apply_mask(const T* in, T* out, int64_t n, const MaskKey& key) {
  using acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;
  const acc_t scale = static_cast<acc_t>(key.scale);
  const uint32_t thr = key.threshold, k1 = key.k1, k2 = key.k2;
  auto bits = [&](int64_t j) {
    return mix32(mix32(static_cast<uint32_t>(j) ^ k1) ^
                 (static_cast<uint32_t>(static_cast<uint64_t>(j) >> 32) * 0x9E3779B9U + k2));
  };
  const int64_t pairs = n / 2;
  at::parallel_for(0, pairs, 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      const uint32_t h = bits(j);
      const acc_t s0 = (h & 0xFFFFU) >= thr ? scale : acc_t(0);
      const acc_t s1 = (h >> 16) >= thr ? scale : acc_t(0);
      out[2 * j] = static_cast<T>(static_cast<acc_t>(in[2 * j]) * s0);
      out[2 * j + 1] = static_cast<T>(static_cast<acc_t>(in[2 * j + 1]) * s1);
    }
  });
  if (n % 2) {
    const uint32_t h = bits(pairs);
    out[n - 1] = static_cast<T>(static_cast<acc_t>(in[n - 1]) * ((h & 0xFFFFU) >= thr ? scale : acc_t(0)));
  }
}

at::Tensor masked(const at::Tensor& x, const MaskKey& key) {
  at::Tensor in = x.contiguous();
  at::Tensor out = at::empty_like(in, at::MemoryFormat::Contiguous);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, in.scalar_type(), "bertpt_dropout", [&] {
    apply_mask<scalar_t>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), in.numel(), key);
  });
  return out;
}

class HashDropout : public torch::autograd::Function<HashDropout> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, int64_t k1, int64_t k2, int64_t threshold,
                            double scale) {
    ctx->saved_data["k1"] = k1;
    ctx->saved_data["k2"] = k2;
    ctx->saved_data["threshold"] = threshold;
    ctx->saved_data["scale"] = scale;
    return masked(x, {static_cast<uint32_t>(k1), static_cast<uint32_t>(k2), static_cast<uint32_t>(threshold), scale});
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    MaskKey key{static_cast<uint32_t>(ctx->saved_data["k1"].toInt()), static_cast<uint32_t>(ctx->saved_data["k2"].toInt()),
                static_cast<uint32_t>(ctx->saved_data["threshold"].toInt()), ctx->saved_data["scale"].toDouble()};
    return {masked(grads[0], key), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const c10::DeviceType dev = x.device().type();
  c10::ScalarType compute = x.scalar_type();
  if (torch_compat::autocast_enabled(dev) && at::isFloatingType(compute) && compute != at::kDouble) {
    compute = torch_compat::autocast_dtype(dev);
  }
  const int64_t in = x.size(-1), out = weight.size(0);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = out;
  return MixedLinear::apply(x.reshape({-1, in}), weight, bias, compute).view(shape);
}

at::Tensor dropout(const at::Tensor& x, double p, bool train) {
  if (!train || p <= 0.0) return x;
  if (p >= 1.0) return x * 0;
  if (!x.device().is_cpu()) return at::dropout(x, p, /*train=*/true);
  // Two 31-bit keys from the default generator: reproducible under torch::manual_seed.
  at::Tensor r = at::randint(std::numeric_limits<int32_t>::max(), {2}, at::TensorOptions().dtype(at::kLong));
  const int64_t k1 = r[0].item<int64_t>(), k2 = r[1].item<int64_t>();
  const int64_t threshold = static_cast<int64_t>(p * 65536.0 + 0.5);
  return HashDropout::apply(x, k1, k2, threshold, 1.0 / (1.0 - p));
}

}  // namespace bertpt::model::ops
