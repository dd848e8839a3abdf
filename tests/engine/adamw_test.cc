// The engine's pieces on their own: LR schedules, AdamW (its parameter groups, the formula, and its
// three kernels against each other and torch::optim::AdamW), gradient clipping.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/optim/adamw.h>

#include "common/error.h"
#include "engine/adamw.h"
#include "engine/lr_schedule.h"
#include "model/bert.h"

namespace bertpt::engine {
namespace {

TEST(LrSchedule, Values) {
  LrSchedule linear{LrScheduleKind::Linear, 1.0, 0, 10};  // the guide's: no warmup, decay to 0
  EXPECT_DOUBLE_EQ(linear.at(0), 1.0);
  EXPECT_DOUBLE_EQ(linear.at(5), 0.5);
  EXPECT_DOUBLE_EQ(linear.at(9), 0.1);
  EXPECT_DOUBLE_EQ(linear.at(10), 0.0);
  EXPECT_DOUBLE_EQ(linear.at(12), 0.0);
  LrSchedule warm{LrScheduleKind::Linear, 1.0, 4, 12};
  EXPECT_DOUBLE_EQ(warm.at(0), 0.0);
  EXPECT_DOUBLE_EQ(warm.at(1), 0.25);
  EXPECT_DOUBLE_EQ(warm.at(4), 1.0);
  EXPECT_DOUBLE_EQ(warm.at(8), 0.5);
  LrSchedule constant{LrScheduleKind::Constant, 2.0, 2, 10};
  EXPECT_DOUBLE_EQ(constant.at(1), 1.0);
  EXPECT_DOUBLE_EQ(constant.at(2), 2.0);
  EXPECT_DOUBLE_EQ(constant.at(9), 2.0);
  LrSchedule cosine{LrScheduleKind::Cosine, 1.0, 2, 12};
  EXPECT_DOUBLE_EQ(cosine.at(2), 1.0);
  EXPECT_NEAR(cosine.at(7), 0.5, 1e-12);
  EXPECT_NEAR(cosine.at(12), 0.0, 1e-12);
  EXPECT_THROW(parse_lr_schedule("step"), BadInput);
}

// Polynomial decay (NVIDIA's BERT recipe, HF's get_polynomial_decay_schedule_with_warmup): from the
// peak to lr_end along (1 - progress)^power, lr_end after the end.
TEST(LrSchedule, PolynomialDecay) {
  LrSchedule p{LrScheduleKind::Polynomial, 1.0, 2, 12};
  p.lr_end = 0.1, p.power = 2.0;
  EXPECT_DOUBLE_EQ(p.at(1), 0.5);
  EXPECT_DOUBLE_EQ(p.at(2), 1.0);
  EXPECT_DOUBLE_EQ(p.at(7), 0.9 * 0.25 + 0.1);  // half way: (1 - 0.5)^2 of the range
  EXPECT_DOUBLE_EQ(p.at(12), 0.1);
  EXPECT_DOUBLE_EQ(p.at(20), 0.1);
}

// Warmup-stable-decay (HF's get_wsd_schedule): linear warmup, the peak, then the last decay_steps
// fall to min_lr_ratio * peak; linear decay is the trapezoid.
TEST(LrSchedule, WarmupStableDecay) {
  LrSchedule w{LrScheduleKind::WarmupStableDecay, 1.0, 2, 12};
  w.decay_steps = 4, w.decay_shape = DecayShape::Linear;
  EXPECT_DOUBLE_EQ(w.at(1), 0.5);
  for (int64_t s = 2; s <= 8; ++s) EXPECT_DOUBLE_EQ(w.at(s), 1.0) << s;  // stable: steps 2..7, decay starts at 8
  EXPECT_DOUBLE_EQ(w.at(10), 0.5);
  EXPECT_DOUBLE_EQ(w.at(12), 0.0);
  w.min_lr_ratio = 0.1;
  EXPECT_DOUBLE_EQ(w.at(10), 0.5 * 0.9 + 0.1);
  EXPECT_DOUBLE_EQ(w.at(0), 0.1);  // warmup starts from the floor too
  EXPECT_DOUBLE_EQ(w.at(30), 0.1);
  w.min_lr_ratio = 0, w.decay_shape = DecayShape::Cosine;
  EXPECT_NEAR(w.at(10), 0.5, 1e-12);
  w.decay_shape = DecayShape::OneMinusSqrt;
  EXPECT_DOUBLE_EQ(w.at(9), 0.5);  // 1 - sqrt(1/4)
  EXPECT_THROW(parse_decay_shape("step"), BadInput);
}

TEST(AdamW, NoDecayGroupsAreBiasesAndLayerNorms) {
  model::BertConfig c = model::builtin_preset("bert-tiny");
  c.vocab_size = 100;
  model::BertForMaskedLM m(c);
  std::vector<std::pair<std::string, at::Tensor>> named;
  for (const auto& it : m->named_parameters()) named.emplace_back(it.key(), it.value());
  AdamW opt(named, {});
  auto no_decay = opt.no_decay_names();
  auto decay = opt.decay_names();
  EXPECT_EQ(no_decay.size() + decay.size(), named.size());
  for (const auto& n : no_decay) {
    EXPECT_TRUE(n.find("bias") != std::string::npos || n.find("LayerNorm") != std::string::npos) << n;
  }
  for (const auto& n : decay) {
    EXPECT_TRUE(n.find("bias") == std::string::npos && n.find("LayerNorm") == std::string::npos) << n;
  }
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(no_decay, "cls.predictions.bias"));
  EXPECT_TRUE(has(no_decay, "bert.embeddings.LayerNorm.weight"));
  EXPECT_TRUE(has(no_decay, "bert.encoder.layer.0.attention.self.query.bias"));
  EXPECT_TRUE(has(decay, "bert.embeddings.word_embeddings.weight"));
  EXPECT_TRUE(has(decay, "bert.encoder.layer.1.output.dense.weight"));
}

TEST(AdamW, MatchesTheFormulaStepByStep) {
  // Two parameters: one decayed, one not; three steps against a scalar re-computation.
  at::Tensor w = at::tensor({0.5, -1.0, 2.0}, at::kFloat).set_requires_grad(true);
  at::Tensor b = at::tensor({0.1, 0.2}, at::kFloat).set_requires_grad(true);
  AdamWOptions ao{0.9, 0.99, 1e-8, 0.1};
  AdamW opt({{"layer.weight", w}, {"layer.bias", b}}, ao);
  std::vector<double> ref_w = {0.5, -1.0, 2.0}, m(3, 0), v(3, 0);
  const double lr = 0.01;
  for (int t = 1; t <= 3; ++t) {
    std::vector<double> g = {0.3 * t, -0.2, 0.05 * t * t};
    w.mutable_grad() = at::tensor({g[0], g[1], g[2]}, at::kFloat);
    b.mutable_grad() = at::tensor({1.0, -1.0}, at::kFloat);
    opt.step(lr);
    for (int i = 0; i < 3; ++i) {
      ref_w[size_t(i)] *= 1 - lr * 0.1;
      m[size_t(i)] = 0.9 * m[size_t(i)] + 0.1 * g[size_t(i)];
      v[size_t(i)] = 0.99 * v[size_t(i)] + 0.01 * g[size_t(i)] * g[size_t(i)];
      const double mh = m[size_t(i)] / (1 - std::pow(0.9, t)), vh = v[size_t(i)] / (1 - std::pow(0.99, t));
      ref_w[size_t(i)] -= lr * mh / (std::sqrt(vh) + 1e-8);
    }
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(w[i].item<double>(), ref_w[size_t(i)], 1e-6) << "step " << t;
  }
  // The bias had no decay: three Adam steps of a constant gradient move it by exactly 3·lr.
  EXPECT_NEAR(b[0].item<double>(), 0.1 - 3 * lr, 1e-6);
  EXPECT_NEAR(b[1].item<double>(), 0.2 + 3 * lr, 1e-6);
  // State round trip.
  AdamW other({{"layer.weight", w}, {"layer.bias", b}}, ao);
  other.load_state(opt.state_tensors(), opt.steps(), "test");
  for (size_t i = 0; i < opt.state_tensors().size(); ++i) {
    EXPECT_TRUE(opt.state_tensors()[i].second.equal(other.state_tensors()[i].second));
  }
}

// LAMB (adamw.h) against its equations recomputed in double, element by element: each decayed tensor
// takes wd·p into its update and moves by lr·‖p‖/‖u‖·u with its own ratio (two of them, updated in one
// multi-tensor call); the bias is plain Adam (no decay, no ratio).
TEST(AdamW, LambMatchesTheEquationsStepByStep) {
  struct Ref {
    at::Tensor param;
    std::vector<double> p, m, v;
    bool decay;
  };
  std::vector<Ref> refs = {{at::tensor({0.5, -1.0, 2.0}, at::kFloat), {0.5, -1.0, 2.0}, {0, 0, 0}, {0, 0, 0}, true},
                           {at::tensor({0.1, 0.2}, at::kFloat), {0.1, 0.2}, {0, 0}, {0, 0}, false},
                           {at::tensor({3.0, -0.5}, at::kFloat), {3.0, -0.5}, {0, 0}, {0, 0}, true}};
  for (auto& r : refs) r.param.set_requires_grad(true);
  AdamWOptions ao{0.9, 0.999, 1e-6, 0.01};
  ao.lamb = true;
  AdamW opt({{"layer.weight", refs[0].param}, {"layer.bias", refs[1].param}, {"other.weight", refs[2].param}}, ao);
  EXPECT_EQ(opt.kernel_name(), "lamb");
  auto adam_direction = [](double& m, double& v, double g, int t) {
    m = 0.9 * m + 0.1 * g;
    v = 0.999 * v + 0.001 * g * g;
    return (m / (1 - std::pow(0.9, t))) / (std::sqrt(v / (1 - std::pow(0.999, t))) + 1e-6);
  };
  for (int t = 1; t <= 4; ++t) {
    const double lr = 0.05 * t;
    const std::vector<std::vector<double>> grads = {{0.3 * t, -0.2, 0.05 * t * t}, {1.0, -0.5 * t}, {-0.1 * t, 0.7}};
    for (size_t k = 0; k < refs.size(); ++k) {
      refs[k].param.mutable_grad() = at::tensor(grads[k], at::kDouble).to(at::kFloat);
    }
    opt.step(lr);
    for (size_t k = 0; k < refs.size(); ++k) {
      Ref& r = refs[k];
      std::vector<double> u(r.p.size());
      double pn = 0, un = 0;
      for (size_t i = 0; i < u.size(); ++i) {
        u[i] = adam_direction(r.m[i], r.v[i], grads[k][i], t) + (r.decay ? 0.01 * r.p[i] : 0.0);
        pn += r.p[i] * r.p[i], un += u[i] * u[i];
      }
      const double ratio = r.decay ? std::sqrt(pn) / std::sqrt(un) : 1.0;
      for (size_t i = 0; i < u.size(); ++i) {
        r.p[i] -= lr * ratio * u[i];
        EXPECT_NEAR(r.param[int64_t(i)].item<double>(), r.p[i], 1e-6) << "tensor " << k << " step " << t;
      }
    }
  }
}

TEST(AdamW, FusedCpuUpdateMatchesTorchAdamW) {
  // Large enough for several parallel chunks and the vector loops' tails; two threads, five steps.
  // Equal to rounding: torch's own kernels round differently per CPU (FMA in its AVX2 add_ kernel).
  const int64_t n = 3 * (1 << 15) + 13;
  at::manual_seed(3);
  at::Tensor init = at::randn({n});
  at::Tensor ours = init.clone().set_requires_grad(true), theirs = init.clone().set_requires_grad(true);
  AdamW opt({{"encoder.weight", ours}}, AdamWOptions{0.9, 0.98, 1e-6, 0.01});
  torch::optim::AdamW ref({theirs}, torch::optim::AdamWOptions(2e-3).betas({0.9, 0.98}).eps(1e-6).weight_decay(0.01));
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  for (int step = 0; step < 5; ++step) {
    at::Tensor g = at::randn({n}) * (step + 1);
    ours.mutable_grad() = g.clone();
    theirs.mutable_grad() = g.clone();
    opt.step(2e-3);
    ref.step();
  }
  at::set_num_threads(threads);
  EXPECT_TRUE(at::allclose(ours, theirs, 1e-6, 1e-6)) << "max |diff| " << (ours - theirs).abs().max().item<float>();
  EXPECT_FALSE(at::allclose(ours, init, 1e-6, 1e-6));  // and it did move
  // The fallback (tensor ops, e.g. for a non-contiguous or non-fp32 parameter) agrees as well.
  at::Tensor strided = init.clone().as_strided({n / 2}, {2}).set_requires_grad(true);
  at::Tensor plain = init.clone().as_strided({n / 2}, {2}).contiguous().set_requires_grad(true);
  AdamW a({{"w", strided}}, AdamWOptions{}), b({{"w", plain}}, AdamWOptions{});
  at::Tensor g = at::randn({n / 2});
  strided.mutable_grad() = g.clone();
  plain.mutable_grad() = g.clone();
  a.step(1e-3);
  b.step(1e-3);
  EXPECT_TRUE(at::allclose(strided, plain, 1e-6, 1e-6));
}

TEST(AdamW, LibTorchFusedKernelEqualsBertptAndTensorOps) {
  // at::_fused_adamw_ (the CUDA path; here its CPU kernel) against bertpt's CPU loop and the tensor
  // ops, over two parameter groups (decay and no decay), five steps, and a restore mid-way.
  const int64_t n = 3 * (1 << 15) + 13;
  at::manual_seed(11);
  const at::Tensor w0 = at::randn({n}), b0 = at::randn({257});
  const AdamWOptions base{0.9, 0.98, 1e-6, 0.01};
  std::map<AdamWKernel, std::vector<at::Tensor>> result;
  for (AdamWKernel k : {AdamWKernel::Bertpt, AdamWKernel::LibTorchFused, AdamWKernel::TensorOps}) {
    at::Tensor w = w0.clone().set_requires_grad(true), b = b0.clone().set_requires_grad(true);
    AdamWOptions o = base;
    o.kernel = k;
    auto opt = std::make_unique<AdamW>(
        std::vector<std::pair<std::string, at::Tensor>>{{"dense.weight", w}, {"dense.bias", b}}, o);
    at::manual_seed(12);
    for (int step = 1; step <= 5; ++step) {
      w.mutable_grad() = at::randn({n}) * step;
      b.mutable_grad() = at::randn({257});
      opt->step(1e-3 * step);
      if (step == 3) {  // a resumed run: a fresh optimizer from the saved state
        auto state = opt->state_tensors();
        opt = std::make_unique<AdamW>(
            std::vector<std::pair<std::string, at::Tensor>>{{"dense.weight", w}, {"dense.bias", b}}, o);
        opt->load_state(state, 3, "test");
      }
    }
    result[k] = {w.detach().clone(), b.detach().clone()};
  }
  for (AdamWKernel k : {AdamWKernel::LibTorchFused, AdamWKernel::TensorOps}) {
    for (int i = 0; i < 2; ++i) {
      const at::Tensor& ours = result[AdamWKernel::Bertpt][i];
      EXPECT_TRUE(at::allclose(result[k][i], ours, 1e-6, 1e-6))
          << "kernel " << int(k) << " tensor " << i << " max |diff| "
          << (result[k][i] - ours).abs().max().item<float>();
    }
  }
  EXPECT_FALSE(at::allclose(result[AdamWKernel::Bertpt][0], w0, 1e-4, 1e-4));  // it did move
  // Weight decay reached the weight only: with zero gradients, the bias group must not decay.
  at::Tensor w = at::ones({4}).set_requires_grad(true), b = at::ones({4}).set_requires_grad(true);
  AdamW fused({{"dense.weight", w}, {"dense.bias", b}},
              AdamWOptions{0.9, 0.999, 1e-8, 0.5, AdamWKernel::LibTorchFused});
  w.mutable_grad() = at::zeros({4});
  b.mutable_grad() = at::zeros({4});
  fused.step(0.1);
  EXPECT_NEAR(w[0].item<float>(), 1.0f - 0.1f * 0.5f, 1e-6);
  EXPECT_NEAR(b[0].item<float>(), 1.0f, 1e-6);
}

TEST(GradClipping, ScalesToTheMaxNorm) {
  at::Tensor a = at::zeros({2}).set_requires_grad(true), b = at::zeros({1}).set_requires_grad(true);
  a.mutable_grad() = at::tensor({3.0f, 0.0f});
  b.mutable_grad() = at::tensor({4.0f});
  at::Tensor norm = global_grad_norm({a, b});
  EXPECT_NEAR(norm.item<double>(), 5.0, 1e-6);
  clip_grads({a, b}, norm, 1.0);
  EXPECT_NEAR(global_grad_norm({a, b}).item<double>(), 1.0, 1e-5);
  clip_grads({a, b}, global_grad_norm({a, b}), 10.0);  // below the limit: unchanged
  EXPECT_NEAR(global_grad_norm({a, b}).item<double>(), 1.0, 1e-5);
}

// The clipping folded into AdamW::step (what StepRunner does on the host path) leaves the parameters and
// moments bit for bit where clip_grads() then step() leaves them, for each kernel, clipped or not.
TEST(GradClipping, FoldedIntoTheUpdateEqualsClippingFirst) {
  for (AdamWKernel kernel : {AdamWKernel::Bertpt, AdamWKernel::TensorOps}) {
    for (double max_norm : {0.5, 1e3}) {  // clipped, and under the limit (coefficient 1)
      at::manual_seed(7);
      const at::Tensor w0 = at::randn({300, 70}), b0 = at::randn({70}), gw = at::randn({300, 70}), gb = at::randn({70});
      auto run = [&](bool folded) {
        at::Tensor w = w0.clone().set_requires_grad(true), b = b0.clone().set_requires_grad(true);
        AdamW opt({{"dense.weight", w}, {"dense.bias", b}}, AdamWOptions{0.9, 0.999, 1e-8, 0.01, kernel});
        for (int step = 0; step < 3; ++step) {
          w.mutable_grad() = gw * (step + 1.0);
          b.mutable_grad() = gb * (step + 1.0);
          const at::Tensor norm = global_grad_norm({w, b});
          if (folded) {
            opt.step(1e-2, {}, clip_coefficient(norm, max_norm));
          } else {
            clip_grads({w, b}, norm, max_norm);
            opt.step(1e-2);
          }
        }
        std::vector<at::Tensor> out = {w.detach(), b.detach()};
        for (const auto& [name, t] : opt.state_tensors()) out.push_back(t);
        return out;
      };
      const std::vector<at::Tensor> first = run(false), folded = run(true);
      ASSERT_EQ(first.size(), folded.size());
      for (size_t i = 0; i < first.size(); ++i) {
        EXPECT_TRUE(at::equal(first[i], folded[i])) << "tensor " << i << ", max_norm " << max_norm;
      }
    }
  }
}

}  // namespace
}  // namespace bertpt::engine
