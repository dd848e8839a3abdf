#include "model/ops.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <torch/csrc/autograd/custom_function.h>

#include "common/error.h"
#include "model/cpu_kernel.h"
#include "model/torch_compat.h"

namespace bertpt::model::ops {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// ---- linear

// The linear of ops::linear, as the two autograd Functions below share it (LibTorch's custom Function
// records every tensor input's device, so a missing bias needs a Function without that input).
// x: [N, in] (already flattened), w: [out, in], b: [out] or undefined.
at::Tensor linear_forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                          c10::ScalarType compute) {
  at::Tensor xc = x.to(compute).contiguous();                                              // [N, in]
  at::Tensor wc = w.to(compute);                                                           // [out, in]
  at::Tensor y = b.defined() ? at::addmm(b.to(compute), xc, wc.t()) : at::mm(xc, wc.t());  // [N, out]
  ctx->save_for_backward({xc, wc});
  ctx->saved_data["x_dtype"] = static_cast<int64_t>(x.scalar_type());
  ctx->saved_data["w_dtype"] = static_cast<int64_t>(w.scalar_type());
  ctx->saved_data["b_dtype"] = static_cast<int64_t>(b.defined() ? b.scalar_type() : w.scalar_type());
  return y;
}

// {dx, dw, db}; db only when `bias` (the Function's third tensor input).
variable_list linear_backward(AutogradContext* ctx, const variable_list& grads, bool bias) {
  auto saved = ctx->get_saved_variables();
  const at::Tensor& xc = saved[0];                             // [N, in]
  const at::Tensor& wc = saved[1];                             // [out, in]
  at::Tensor dy = grads[0].to(wc.scalar_type()).contiguous();  // [N, out]
  auto dtype = [&](const char* key) { return static_cast<c10::ScalarType>(ctx->saved_data[key].toInt()); };
  at::Tensor dx, dw, db;
  if (ctx->needs_input_grad(0)) dx = at::mm(dy, wc).to(dtype("x_dtype"));  // [N, in]
  // dyᵀ·x is [out, in] and contiguous: the layout .grad wants, no transposed copy.
  if (ctx->needs_input_grad(1)) dw = at::mm(dy.t(), xc).to(dtype("w_dtype"));
  // ATen's sum accumulates bf16 in fp32 internally; only the result is rounded (as with autocast).
  if (bias && ctx->needs_input_grad(2)) db = dy.sum(0).to(dtype("b_dtype"));
  return {dx, dw, db};
}

class MixedLinear : public torch::autograd::Function<MixedLinear> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b,
                            c10::ScalarType compute) {
    return linear_forward(ctx, x, w, b, compute);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list g = linear_backward(ctx, grads, /*bias=*/true);
    return {g[0], g[1], g[2], at::Tensor()};
  }
};

class MixedLinearNoBias : public torch::autograd::Function<MixedLinearNoBias> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& w, c10::ScalarType compute) {
    return linear_forward(ctx, x, w, at::Tensor(), compute);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list g = linear_backward(ctx, grads, /*bias=*/false);
    return {g[0], g[1], at::Tensor()};
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

// The 32 random bits of element pair j: elements 2j and 2j+1 use the low and high 16 bits.
inline uint32_t pair_bits(uint32_t j_lo, uint32_t hi_term, uint32_t k1) { return mix32(mix32(j_lo ^ k1) ^ hi_term); }
inline uint32_t hi_term_of(uint64_t j, uint32_t k2) { return static_cast<uint32_t>(j >> 32) * 0x9E3779B9U + k2; }

// bf16 rounding of a float as c10::BFloat16 does it (nearest, ties to even; NaN -> 0x7FC0), written
// branch-free so the loop below vectorizes (the c10 conversion does not).
inline uint32_t float_bits_to_bf16(uint32_t u) {
  const uint32_t rounded = (u + 0x7FFFU + ((u >> 16) & 1U)) >> 16;
  return (u & 0x7FFFFFFFU) > 0x7F800000U ? 0x7FC0U : rounded;
}

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Element pairs [begin, end) of a contiguous buffer: out[i] = keep(i) ? in[i] * scale : 0. The
// generic loop (double, half); float and bf16 have vectorized overloads below.
template <typename T>
void mask_pairs(const T* in, T* out, int64_t begin, int64_t end, uint32_t k1, uint32_t k2, uint32_t thr, double scale) {
  using acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;
  const acc_t s = static_cast<acc_t>(scale);
  for (int64_t j = begin; j < end; ++j) {
    const uint32_t h = pair_bits(static_cast<uint32_t>(j), hi_term_of(j, k2), k1);
    out[2 * j] = static_cast<T>(static_cast<acc_t>(in[2 * j]) * ((h & 0xFFFFU) >= thr ? s : acc_t(0)));
    out[2 * j + 1] = static_cast<T>(static_cast<acc_t>(in[2 * j + 1]) * ((h >> 16) >= thr ? s : acc_t(0)));
  }
}

// Cloned per instruction set: the two integer hashes per pair need AVX2's 32-bit multiply to be cheap.
BERTPT_VECTOR_CLONES
void mask_float_pairs(const float* __restrict in, float* __restrict out, int64_t begin, int64_t end, uint32_t k1,
                      uint32_t k2, uint32_t thr, float scale) {
  for (int64_t j = begin; j < end; ++j) {
    const uint32_t h = pair_bits(static_cast<uint32_t>(j), hi_term_of(j, k2), k1);
    out[2 * j] = in[2 * j] * ((h & 0xFFFFU) >= thr ? scale : 0.0f);
    out[2 * j + 1] = in[2 * j + 1] * ((h >> 16) >= thr ? scale : 0.0f);
  }
}

// bf16: a pair of elements is one 32-bit word (little-endian: element 2j is the low half); both
// halves are widened to float by a shift, scaled, and rounded back as c10::BFloat16 rounds (tests/
// model: Bf16DropoutIsFloatDropoutRounded).
BERTPT_VECTOR_CLONES
void mask_bf16_pairs(const uint32_t* __restrict in, uint32_t* __restrict out, int64_t begin, int64_t end, uint32_t k1,
                     uint32_t k2, uint32_t thr, float scale) {
  for (int64_t j = begin; j < end; ++j) {
    const uint32_t word = in[j];
    const uint32_t h = pair_bits(static_cast<uint32_t>(j), hi_term_of(j, k2), k1);
    const float s0 = (h & 0xFFFFU) >= thr ? scale : 0.0f;
    const float s1 = (h >> 16) >= thr ? scale : 0.0f;
    const uint32_t lo = float_bits_to_bf16(float_to_bits(bits_to_float(word << 16) * s0));
    const uint32_t hi = float_bits_to_bf16(float_to_bits(bits_to_float(word & 0xFFFF0000U) * s1));
    out[j] = lo | (hi << 16);
  }
}

void mask_pairs(const float* in, float* out, int64_t begin, int64_t end, uint32_t k1, uint32_t k2, uint32_t thr,
                double scale) {
  mask_float_pairs(in, out, begin, end, k1, k2, thr, static_cast<float>(scale));
}

void mask_pairs(const c10::BFloat16* in, c10::BFloat16* out, int64_t begin, int64_t end, uint32_t k1, uint32_t k2,
                uint32_t thr, double scale) {
  // 4-byte aligned: masked() copies a view that starts at an odd element.
  mask_bf16_pairs(reinterpret_cast<const uint32_t*>(in), reinterpret_cast<uint32_t*>(out), begin, end, k1, k2, thr,
                  static_cast<float>(scale));
}

template <typename T>
void apply_mask(const T* in, T* out, int64_t n, const MaskKey& key) {
  // Copied into the lambda by value: through references the scalars could alias the output and be
  // reloaded on every element, which stops vectorization.
  const uint32_t thr = key.threshold, k1 = key.k1, k2 = key.k2;
  const double scale = key.scale;
  const int64_t pairs = n / 2;
  at::parallel_for(0, pairs, 1 << 14,
                   [=](int64_t begin, int64_t end) { mask_pairs(in, out, begin, end, k1, k2, thr, scale); });
  if (n % 2) {  // the last, unpaired element: the low half of pair `pairs`
    using acc_t = std::conditional_t<std::is_same<T, double>::value, double, float>;
    const uint32_t h = pair_bits(static_cast<uint32_t>(pairs), hi_term_of(pairs, k2), k1);
    out[n - 1] = static_cast<T>(static_cast<acc_t>(in[n - 1]) *
                                ((h & 0xFFFFU) >= thr ? static_cast<acc_t>(scale) : acc_t(0)));
  }
}

at::Tensor masked(const at::Tensor& x, const MaskKey& key) {
  at::Tensor in = x.contiguous();
  if (reinterpret_cast<uintptr_t>(in.data_ptr()) % 4 != 0) in = in.clone();  // bf16 reads element pairs as words
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
    MaskKey key{static_cast<uint32_t>(ctx->saved_data["k1"].toInt()),
                static_cast<uint32_t>(ctx->saved_data["k2"].toInt()),
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
  const at::Tensor flat = x.reshape({-1, in});
  return (bias.defined() ? MixedLinear::apply(flat, weight, bias, compute)
                         : MixedLinearNoBias::apply(flat, weight, compute))
      .view(shape);
}

at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps) {
  return at::layer_norm(x.to(weight.scalar_type()), {x.size(-1)}, weight, bias, eps, /*cudnn_enable=*/true);
}

at::Tensor activation(const at::Tensor& x, const std::string& name) {
  if (name == "gelu") return at::gelu(x);  // exact erf form, as BERT's "gelu"
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return at::gelu(x, "tanh");
  if (name == "relu") return at::relu(x);
  if (name == "silu" || name == "swish") return at::silu(x);
  throw BadInput("unsupported activation '" + name + "'", "use gelu, gelu_new, gelu_pytorch_tanh, relu or silu");
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
