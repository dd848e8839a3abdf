// BertForMaskedLM: HF names and sizes, forward and gradients against an independent plain-tensor
// re-implementation (fp64), finite differences, sparse vs dense head, fused vs explicit attention,
// bf16 autocast vs fp32, and a tiny overfit run. Tiny configs only: the whole file runs in seconds.
#include "model/bert.h"

#include <gtest/gtest.h>

#include <limits>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <torch/optim/adamw.h>

#include <cmath>
#include <map>

#include "common/error.h"
#include "model/ops.h"
#include "model/torch_compat.h"

namespace bertpt::model {
namespace {

using Params = std::map<std::string, at::Tensor>;

BertConfig tiny_config() {
  BertConfig c;
  c.vocab_size = 50;
  c.hidden_size = 16;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 2;
  c.intermediate_size = 32;
  c.max_position_embeddings = 16;
  c.hidden_dropout_prob = 0.0;
  c.attention_probs_dropout_prob = 0.0;
  c.initializer_range = 0.2;  // larger than BERT's 0.02 so every term matters in the comparison
  return c;
}

Params params_of(const torch::nn::Module& m) {
  Params p;
  for (const auto& item : m.named_parameters()) p[item.key()] = item.value();
  return p;
}

// A batch of 3 sequences of 7 tokens: row 1 has 2 padding positions, token types mixed, labels
// on a few positions (one of them predicting the [PAD] id 0, so the tied decoder touches that row).
struct Batch {
  at::Tensor ids, mask, types, labels;  // [B, T]
};
Batch tiny_batch() {
  Batch b;
  b.ids = at::tensor({2, 11, 12, 13, 14, 15, 3,  //
                      2, 21, 22, 23, 3,  0,  0,  //
                      2, 31, 4,  33, 4,  35, 3},
                     at::kLong)
              .view({3, 7});
  b.mask = at::tensor({1, 1, 1, 1, 1, 1, 1,  //
                       1, 1, 1, 1, 1, 0, 0,  //
                       1, 1, 1, 1, 1, 1, 1},
                      at::kLong)
               .view({3, 7});
  b.types = at::tensor({0, 0, 0, 1, 1, 1, 1,  //
                        0, 0, 1, 1, 1, 0, 0,  //
                        0, 0, 0, 0, 1, 1, 1},
                       at::kLong)
                .view({3, 7});
  b.labels = at::full({3, 7}, -100, at::kLong);
  b.labels[0][2] = 12;
  b.labels[0][4] = 40;
  b.labels[1][1] = 0;
  b.labels[1][3] = 23;
  b.labels[2][2] = 32;
  b.labels[2][4] = 34;
  return b;
}

// ---- the independent re-implementation: plain tensor algebra, HF's formulas written out.

at::Tensor ref_linear(const at::Tensor& x, Params& p, const std::string& name) {
  return at::matmul(x, p[name + ".weight"].t()) + p[name + ".bias"];
}

at::Tensor ref_layer_norm(const at::Tensor& x, Params& p, const std::string& name, double eps) {
  at::Tensor mean = x.mean({-1}, /*keepdim=*/true);
  at::Tensor var = (x - mean).pow(2).mean({-1}, true);  // biased, as LayerNorm
  return (x - mean) / at::sqrt(var + eps) * p[name + ".weight"] + p[name + ".bias"];
}

at::Tensor ref_gelu(const at::Tensor& x) { return 0.5 * x * (1.0 + at::erf(x / std::sqrt(2.0))); }

at::Tensor ref_softmax(const at::Tensor& s) {
  at::Tensor e = at::exp(s - std::get<0>(s.max(-1, true)));
  return e / e.sum({-1}, true);
}

// [B, T, H] final hidden states.
at::Tensor ref_encoder(Params& p, const BertConfig& c, const Batch& b) {
  const int64_t B = b.ids.size(0), T = b.ids.size(1), H = c.hidden_size, nh = c.num_attention_heads, hd = H / nh;
  // nn.Embedding(padding_idx): the [PAD] row gets no gradient through the lookup.
  at::Tensor W = p["bert.embeddings.word_embeddings.weight"];
  at::Tensor W_lookup = at::cat({W.narrow(0, 0, c.pad_token_id), W.narrow(0, c.pad_token_id, 1).detach(),
                                 W.narrow(0, c.pad_token_id + 1, c.vocab_size - c.pad_token_id - 1)});
  at::Tensor x = W_lookup.index_select(0, b.ids.reshape(-1)).view({B, T, H}) +
                 p["bert.embeddings.position_embeddings.weight"].narrow(0, 0, T) +
                 p["bert.embeddings.token_type_embeddings.weight"].index_select(0, b.types.reshape(-1)).view({B, T, H});
  x = ref_layer_norm(x, p, "bert.embeddings.LayerNorm", c.layer_norm_eps);
  at::Tensor neg = (1.0 - b.mask.to(x.scalar_type())).view({B, 1, 1, T}) * -1e9;
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string pre = "bert.encoder.layer." + std::to_string(l);
    auto heads = [&](const std::string& n) {
      return ref_linear(x, p, pre + ".attention.self." + n).view({B, T, nh, hd}).permute({0, 2, 1, 3});
    };
    at::Tensor q = heads("query"), k = heads("key"), v = heads("value");
    at::Tensor probs = ref_softmax(at::matmul(q, k.transpose(-1, -2)) / std::sqrt(double(hd)) + neg);
    at::Tensor ctx = at::matmul(probs, v).permute({0, 2, 1, 3}).reshape({B, T, H});
    at::Tensor a = ref_layer_norm(ref_linear(ctx, p, pre + ".attention.output.dense") + x, p,
                                  pre + ".attention.output.LayerNorm", c.layer_norm_eps);
    at::Tensor f = ref_linear(ref_gelu(ref_linear(a, p, pre + ".intermediate.dense")), p, pre + ".output.dense");
    x = ref_layer_norm(f + a, p, pre + ".output.LayerNorm", c.layer_norm_eps);
  }
  return x;
}

at::Tensor ref_logits(Params& p, const BertConfig& c, const at::Tensor& hidden) {
  at::Tensor t = ref_gelu(ref_linear(hidden, p, "cls.predictions.transform.dense"));
  t = ref_layer_norm(t, p, "cls.predictions.transform.LayerNorm", c.layer_norm_eps);
  return at::matmul(t, p["bert.embeddings.word_embeddings.weight"].t()) + p["cls.predictions.bias"];
}

// Sum of -log softmax(logits)[label] over labelled positions.
at::Tensor ref_loss_sum(const at::Tensor& logits, const at::Tensor& labels) {
  at::Tensor flat = logits.reshape({-1, logits.size(-1)});
  at::Tensor y = labels.reshape(-1);
  at::Tensor keep = y.ne(-100);
  at::Tensor lse = at::log(at::exp(flat - std::get<0>(flat.max(-1, true))).sum(-1)) + std::get<0>(flat.max(-1));
  at::Tensor picked = flat.gather(1, y.clamp_min(0).unsqueeze(1)).squeeze(1);
  return ((lse - picked) * keep.to(flat.scalar_type())).sum();
}

std::map<std::string, at::Tensor> grads_of(const torch::nn::Module& m) {
  std::map<std::string, at::Tensor> g;
  for (const auto& item : m.named_parameters()) {
    g[item.key()] = item.value().grad().defined() ? item.value().grad().clone() : at::zeros_like(item.value());
  }
  return g;
}

void zero_grads(torch::nn::Module& m) {
  for (auto& p : m.parameters()) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
}

void expect_close(const at::Tensor& a, const at::Tensor& b, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  double err = (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
  double scale = b.to(at::kDouble).abs().max().item<double>();
  EXPECT_LE(err, atol + rtol * scale) << what << ": max abs diff " << err << ", max |ref| " << scale;
}

// ---- names and sizes

std::vector<std::pair<std::string, std::vector<int64_t>>> hf_bert_mlm_keys(const BertConfig& c) {
  const int64_t V = c.vocab_size, H = c.hidden_size, I = c.intermediate_size;
  std::vector<std::pair<std::string, std::vector<int64_t>>> k = {
      {"bert.embeddings.word_embeddings.weight", {V, H}},
      {"bert.embeddings.position_embeddings.weight", {c.max_position_embeddings, H}},
      {"bert.embeddings.token_type_embeddings.weight", {c.type_vocab_size, H}},
      {"bert.embeddings.LayerNorm.weight", {H}},
      {"bert.embeddings.LayerNorm.bias", {H}},
  };
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
    for (const char* n : {"query", "key", "value"}) {
      k.push_back({p + "attention.self." + n + ".weight", {H, H}});
      k.push_back({p + "attention.self." + n + ".bias", {H}});
    }
    k.push_back({p + "attention.output.dense.weight", {H, H}});
    k.push_back({p + "attention.output.dense.bias", {H}});
    k.push_back({p + "attention.output.LayerNorm.weight", {H}});
    k.push_back({p + "attention.output.LayerNorm.bias", {H}});
    k.push_back({p + "intermediate.dense.weight", {I, H}});
    k.push_back({p + "intermediate.dense.bias", {I}});
    k.push_back({p + "output.dense.weight", {H, I}});
    k.push_back({p + "output.dense.bias", {H}});
    k.push_back({p + "output.LayerNorm.weight", {H}});
    k.push_back({p + "output.LayerNorm.bias", {H}});
  }
  // transformers' state_dict order: the module's own parameter first, then its children.
  k.push_back({"cls.predictions.bias", {V}});
  k.push_back({"cls.predictions.transform.dense.weight", {H, H}});
  k.push_back({"cls.predictions.transform.dense.bias", {H}});
  k.push_back({"cls.predictions.transform.LayerNorm.weight", {H}});
  k.push_back({"cls.predictions.transform.LayerNorm.bias", {H}});
  return k;
}

TEST(BertForMaskedLM, BertBaseHasHfNamesShapesAndParameterCount) {
  BertConfig c = builtin_preset("bert-base");
  ASSERT_EQ(c.vocab_size, 32000);
  BertForMaskedLM model(c, /*init_weights=*/false);  // names and sizes only: skip 110M random draws
  EXPECT_EQ(count_parameters(*model), 110'650'880);  // transformers' BertForMaskedLM(bert-base)

  auto expected = hf_bert_mlm_keys(c);
  auto named = model->named_parameters();
  ASSERT_EQ(named.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(named[i].key(), expected[i].first);
    EXPECT_EQ(named[i].value().sizes(), at::IntArrayRef(expected[i].second)) << expected[i].first;
  }
}

TEST(BertForMaskedLM, InitialisesLikeTransformers) {
  // HF init: N(0, 0.02) weights, [PAD] row zero, biases 0, LayerNorm weight 1.
  torch::manual_seed(0);
  BertForMaskedLM model(builtin_preset("bert-mini"));
  Params p = params_of(*model);
  at::Tensor E = p["bert.embeddings.word_embeddings.weight"];
  EXPECT_EQ(E[0].abs().sum().item<double>(), 0.0);
  EXPECT_NEAR(E.narrow(0, 1, 31999).std().item<double>(), 0.02, 1e-4);
  EXPECT_NEAR(p["bert.encoder.layer.3.intermediate.dense.weight"].std().item<double>(), 0.02, 2e-4);
  EXPECT_NEAR(p["bert.encoder.layer.3.intermediate.dense.weight"].mean().item<double>(), 0.0, 2e-4);
  EXPECT_EQ(p["bert.encoder.layer.2.output.dense.bias"].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(p["cls.predictions.bias"].abs().sum().item<double>(), 0.0);
  EXPECT_TRUE(p["bert.encoder.layer.3.output.LayerNorm.weight"].eq(1.0).all().item<bool>());
  EXPECT_EQ(p["bert.encoder.layer.3.output.LayerNorm.bias"].abs().sum().item<double>(), 0.0);
}

TEST(BertForMaskedLM, DecoderIsTiedToWordEmbeddings) {
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  model->eval();
  Batch b = tiny_batch();
  at::Tensor before = model->logits(b.ids, b.mask, b.types);
  {
    at::NoGradGuard ng;
    model->bert->embeddings->word_embeddings[7].add_(1.0);
  }
  at::Tensor after = model->logits(b.ids, b.mask, b.types);
  // Token 7 is not in the input, so only its decoder column can change: the decoder reads E.
  at::Tensor diff = (after - before).abs().sum(at::IntArrayRef{0, 1});  // [V]
  EXPECT_GT(diff[7].item<double>(), 0.0);
  diff[7] = 0;
  EXPECT_EQ(diff.sum().item<double>(), 0.0);
}

TEST(BertForSequenceClassification, HasPoolerAndClassifier) {
  BertConfig c = tiny_config();
  BertForSequenceClassification model(c, 3);
  Params p = params_of(*model);
  EXPECT_EQ(p.at("bert.pooler.dense.weight").sizes(), at::IntArrayRef({16, 16}));
  EXPECT_EQ(p.at("classifier.weight").sizes(), at::IntArrayRef({3, 16}));
  EXPECT_EQ(p.at("classifier.bias").sizes(), at::IntArrayRef({3}));
  EXPECT_EQ(p.count("cls.predictions.bias"), 0u);
  Batch b = tiny_batch();
  EXPECT_EQ(model->forward(b.ids, b.mask, b.types).sizes(), at::IntArrayRef({3, 3}));
}

// ---- numerics

class TinyModel : public ::testing::TestWithParam<AttentionKernel> {};

TEST_P(TinyModel, ForwardAndGradientsMatchPlainReimplementation) {
  torch::manual_seed(1);
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  model->to(at::kDouble);
  model->train();  // dropout is 0: train mode must then equal the reference exactly
  model->bert->set_attention_kernel(GetParam());
  Batch b = tiny_batch();

  MlmOutput out = model->forward(b.ids, b.mask, b.types, b.labels, MlmHead::Sparse);
  out.loss_sum.backward();
  auto grads = grads_of(*model);
  zero_grads(*model);

  Params p = params_of(*model);
  at::Tensor hidden = ref_encoder(p, c, b);
  at::Tensor logits = ref_logits(p, c, hidden);
  at::Tensor loss = ref_loss_sum(logits, b.labels);
  loss.backward();
  auto ref_grads = grads_of(*model);

  expect_close(model->bert->forward(b.ids, b.mask, b.types), hidden, 1e-10, 1e-12, "hidden states");
  expect_close(model->logits(b.ids, b.mask, b.types), logits, 1e-10, 1e-12, "logits");
  expect_close(out.loss_sum, loss, 1e-12, 1e-12, "loss sum");
  EXPECT_EQ(out.num_masked, 6);
  int64_t correct = logits.argmax(-1).eq(b.labels).sum().item<int64_t>();
  EXPECT_EQ(out.num_correct.item<int64_t>(), correct);
  ASSERT_EQ(grads.size(), ref_grads.size());
  for (const auto& [name, g] : grads) {
    EXPECT_GT(ref_grads[name].abs().sum().item<double>(), 0.0) << name << " gets no gradient";
    expect_close(g, ref_grads[name], 1e-9, 1e-12, "grad of " + name);
  }
}

INSTANTIATE_TEST_SUITE_P(AttentionKernels, TinyModel,
                         ::testing::Values(AttentionKernel::Explicit, AttentionKernel::Fused),
                         [](const auto& info) { return info.param == AttentionKernel::Fused ? "Fused" : "Explicit"; });

TEST(BertForMaskedLM, GradientsMatchFiniteDifferences) {
  torch::manual_seed(2);
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  model->to(at::kDouble);
  Batch b = tiny_batch();
  auto loss = [&] { return model->forward(b.ids, b.mask, b.types, b.labels).loss_sum; };
  loss().backward();
  Params p = params_of(*model);
  const std::vector<std::pair<std::string, int64_t>> probes = {
      {"bert.embeddings.word_embeddings.weight", 12 * 16 + 3},  // a looked-up token
      {"bert.embeddings.word_embeddings.weight", 40 * 16 + 5},  // a label only (decoder)
      {"bert.embeddings.position_embeddings.weight", 2 * 16 + 1},
      {"bert.encoder.layer.0.attention.self.query.weight", 17},
      {"bert.encoder.layer.0.attention.self.key.bias", 3},
      {"bert.encoder.layer.1.attention.self.value.weight", 100},
      {"bert.encoder.layer.1.intermediate.dense.weight", 200},
      {"bert.encoder.layer.1.output.LayerNorm.weight", 4},
      {"cls.predictions.transform.dense.bias", 7},
      {"cls.predictions.bias", 23},
  };
  at::NoGradGuard ng;
  const double h = 1e-6;
  for (const auto& [name, index] : probes) {
    at::Tensor flat = p[name].view(-1);
    double analytic = p[name].grad().view(-1)[index].item<double>();
    double orig = flat[index].item<double>();
    flat[index] = orig + h;
    double up = loss().item<double>();
    flat[index] = orig - h;
    double down = loss().item<double>();
    flat[index] = orig;
    double numeric = (up - down) / (2 * h);
    EXPECT_NEAR(analytic, numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << name << "[" << index << "]";
  }
}

TEST(BertForMaskedLM, SparseHeadEqualsDenseHead) {
  torch::manual_seed(3);
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  Batch b = tiny_batch();
  MlmOutput dense = model->forward(b.ids, b.mask, b.types, b.labels, MlmHead::Dense);
  dense.loss_sum.backward();
  auto dense_grads = grads_of(*model);
  zero_grads(*model);
  MlmOutput sparse = model->forward(b.ids, b.mask, b.types, b.labels, MlmHead::Sparse);
  sparse.loss_sum.backward();
  auto sparse_grads = grads_of(*model);

  EXPECT_EQ(sparse.num_masked, 6);
  EXPECT_EQ(dense.num_masked, 6);
  EXPECT_EQ(sparse.num_correct.item<int64_t>(), dense.num_correct.item<int64_t>());
  EXPECT_FALSE(sparse.logits.defined());
  EXPECT_EQ(dense.logits.sizes(), at::IntArrayRef({3, 7, 50}));
  expect_close(sparse.loss_sum, dense.loss_sum, 1e-6, 1e-6, "loss sum");
  for (const auto& [name, g] : dense_grads) expect_close(sparse_grads[name], g, 1e-5, 1e-7, "grad of " + name);

  // No labelled position at all: zero loss, zero count, still differentiable.
  at::Tensor none = at::full({3, 7}, -100, at::kLong);
  MlmOutput empty = model->forward(b.ids, b.mask, b.types, none);
  EXPECT_EQ(empty.num_masked, 0);
  EXPECT_EQ(empty.loss_sum.item<double>(), 0.0);
  empty.loss_sum.backward();
}

TEST(BertForMaskedLM, FusedAttentionEqualsExplicit) {
  // at::scaled_dot_product_attention (its CPU flash kernel) against matmul-softmax-matmul, fp32,
  // forward and backward, with a padding mask and without one.
  torch::manual_seed(4);
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  Batch b = tiny_batch();
  EXPECT_EQ(attention_kernel_name(AttentionKernel::Auto, c10::DeviceType::CUDA), "fused");
  EXPECT_EQ(attention_kernel_name(AttentionKernel::Auto, c10::DeviceType::CPU), "explicit");
  EXPECT_EQ(attention_kernel_name(AttentionKernel::Fused, c10::DeviceType::CPU), "fused");
  EXPECT_EQ(attention_kernel_name(AttentionKernel::Explicit, c10::DeviceType::CUDA), "explicit");
  for (const at::Tensor& mask : {b.mask, at::Tensor()}) {
    SCOPED_TRACE(mask.defined() ? "with padding mask" : "without mask");
    std::map<AttentionKernel, std::pair<at::Tensor, std::map<std::string, at::Tensor>>> results;
    for (AttentionKernel k : {AttentionKernel::Explicit, AttentionKernel::Fused}) {
      model->bert->set_attention_kernel(k);
      zero_grads(*model);
      MlmOutput out = model->forward(b.ids, mask, b.types, b.labels);
      out.loss_sum.backward();
      results[k] = {model->logits(b.ids, mask, b.types).detach(), grads_of(*model)};
    }
    const auto& ex = results[AttentionKernel::Explicit];
    const auto& fu = results[AttentionKernel::Fused];
    expect_close(fu.first, ex.first, 1e-5, 1e-6, "logits");
    for (const auto& [name, g] : ex.second) {
      if (name.ends_with("attention.self.key.bias")) {
        // The key bias adds q·b to every score of a query, and softmax ignores a constant added to
        // all of a row's scores: its gradient is zero, so each kernel gives only its own rounding
        // noise (~1e-7, a different kernel order on each CPU) — both must be that small.
        expect_close(fu.second.at(name), at::zeros_like(g), 0, 1e-6, "grad of " + name + " (fused)");
        expect_close(g, at::zeros_like(g), 0, 1e-6, "grad of " + name + " (explicit)");
        continue;
      }
      expect_close(fu.second.at(name), g, 1e-5, 1e-7, "grad of " + name);
    }
  }
  // The mask matters: padded positions change the unpadded sequence's logits when attended to.
  model->bert->set_attention_kernel(AttentionKernel::Fused);
  at::Tensor masked = model->logits(b.ids, b.mask, b.types), unmasked = model->logits(b.ids, {}, b.types);
  EXPECT_FALSE(at::allclose(masked[1], unmasked[1], 1e-4, 1e-4));
  EXPECT_TRUE(at::allclose(masked[0], unmasked[0], 1e-5, 1e-6));  // row 0 has no padding
}

TEST(BertForMaskedLM, Bf16AutocastIsCloseToFp32) {
  torch::manual_seed(5);
  BertConfig c = tiny_config();
  c.initializer_range = 0.02;
  c.hidden_size = 64;
  c.num_attention_heads = 4;
  c.intermediate_size = 128;
  BertForMaskedLM model(c);
  Batch b = tiny_batch();

  MlmOutput f32 = model->forward(b.ids, b.mask, b.types, b.labels);
  f32.loss_sum.backward();
  auto g32 = grads_of(*model);
  zero_grads(*model);

  ASSERT_FALSE(torch_compat::autocast_enabled(c10::DeviceType::CPU));
  MlmOutput bf;
  at::Tensor logits;
  {
    torch_compat::AutocastGuard autocast(c10::DeviceType::CPU, at::kBFloat16);
    EXPECT_TRUE(torch_compat::autocast_enabled(c10::DeviceType::CPU));
    bf = model->forward(b.ids, b.mask, b.types, b.labels);
    logits = model->logits(b.ids, b.mask, b.types);
  }
  EXPECT_FALSE(torch_compat::autocast_enabled(c10::DeviceType::CPU));  // restored
  EXPECT_EQ(logits.scalar_type(), at::kBFloat16);                      // GEMMs ran in bf16
  EXPECT_EQ(bf.loss_sum.scalar_type(), at::kFloat);                    // the loss did not
  bf.loss_sum.backward();
  auto g16 = grads_of(*model);

  double l32 = f32.loss_sum.item<double>(), l16 = bf.loss_sum.item<double>();
  EXPECT_NEAR(l16, l32, 0.01 * l32);
  EXPECT_NE(l16, l32);  // it really computed in lower precision
  for (const auto& [name, g] : g32) {
    EXPECT_EQ(g16[name].scalar_type(), at::kFloat) << name;  // fp32 master gradients
    // The key bias adds the same number to every score of a query row, which softmax ignores: its
    // true gradient is 0, and both runs hold only rounding noise there.
    if (name.find("attention.self.key.bias") != std::string::npos) {
      EXPECT_LT(g16[name].abs().max().item<double>(), 1e-3) << name;
      continue;
    }
    double cos = (g * g16[name]).sum().item<double>() /
                 (g.norm().item<double>() * g16[name].norm().item<double>() + 1e-30);
    EXPECT_GT(cos, 0.99) << name;
  }

  // A disabled guard is a no-op.
  {
    torch_compat::AutocastGuard off(c10::DeviceType::CPU, at::kBFloat16, /*enabled=*/false);
    EXPECT_FALSE(torch_compat::autocast_enabled(c10::DeviceType::CPU));
  }
}

TEST(BertForMaskedLM, DropoutOnlyInTrainingMode) {
  torch::manual_seed(6);
  BertConfig c = tiny_config();
  c.hidden_dropout_prob = 0.1;
  c.attention_probs_dropout_prob = 0.1;
  BertForMaskedLM model(c);
  Batch b = tiny_batch();
  model->train();
  at::Tensor a = model->logits(b.ids, b.mask, b.types), a2 = model->logits(b.ids, b.mask, b.types);
  EXPECT_FALSE(at::equal(a, a2));
  model->eval();
  at::Tensor e = model->logits(b.ids, b.mask, b.types), e2 = model->logits(b.ids, b.mask, b.types);
  EXPECT_TRUE(at::equal(e, e2));
}

TEST(BertForMaskedLM, PaddingDoesNotChangeRealTokens) {
  torch::manual_seed(7);
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  model->eval();
  // Row 1 of the batch alone without its 2 padding positions == row 1 of the padded batch.
  Batch b = tiny_batch();
  at::Tensor full = model->bert->forward(b.ids, b.mask, b.types)[1].narrow(0, 0, 5);
  at::Tensor alone = model->bert->forward(b.ids[1].narrow(0, 0, 5).unsqueeze(0), {},
                                          b.types[1].narrow(0, 0, 5).unsqueeze(0))[0];
  expect_close(full, alone, 1e-5, 1e-6, "unpadded row");
}

TEST(BertForMaskedLM, RejectsSequencesLongerThanMaxPositions) {
  BertConfig c = tiny_config();
  BertForMaskedLM model(c);
  at::Tensor ids = at::ones({1, 17}, at::kLong);
  try {
    model->logits(ids);
    FAIL() << "no error";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("max_position_embeddings (16)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(model->forward(ids.narrow(1, 0, 4), {}, {}, at::ones({1, 5}, at::kLong)), BadInput);
}

TEST(BertForMaskedLM, OverfitsAFewSequences) {
  torch::manual_seed(8);
  BertConfig c = tiny_config();
  c.vocab_size = 30;
  c.hidden_size = 32;
  c.intermediate_size = 64;
  c.initializer_range = 0.02;
  BertForMaskedLM model(c);
  model->train();
  // 4 fixed sequences; [MASK]=4 at 3 positions each, labels = the hidden tokens.
  at::Tensor ids = at::randint(5, 30, {4, 12}, at::kLong);
  at::Tensor labels = at::full({4, 12}, -100, at::kLong);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j : {1 + i, 5 + i, int64_t{9}}) {
      labels[i][j] = ids[i][j].item<int64_t>();
      ids[i][j] = 4;
    }
  }
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.0));
  double first = 0, last = 0;
  for (int step = 0; step < 150; ++step) {
    opt.zero_grad();
    MlmOutput out = model->forward(ids, {}, {}, labels);
    at::Tensor loss = out.loss_sum / static_cast<double>(out.num_masked);
    loss.backward();
    opt.step();
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  EXPECT_GT(first, 3.0);  // ~ln(30) at init
  EXPECT_LT(last, 0.05);
  model->eval();
  MlmOutput out = model->forward(ids, {}, {}, labels);
  EXPECT_EQ(out.num_correct.item<int64_t>(), 12);
}

// ---- ops

TEST(Ops, DropoutStatisticsScaleAndGradient) {
  torch::manual_seed(11);
  at::Tensor x = at::ones({1000, 1001}).requires_grad_();  // odd count: a tail element
  at::Tensor y = ops::dropout(x, 0.1, /*train=*/true);
  at::Tensor kept = y.ne(0);
  const double keep_rate = kept.to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(keep_rate, 0.9, 0.002);  // 1,001,000 draws: sd 0.0003
  EXPECT_TRUE(at::allclose(y.masked_select(kept), at::full({1}, 1.0 / 0.9)));
  // Neighbouring elements are independent (the two halves of one hash).
  at::Tensor k = kept.reshape(-1).narrow(0, 0, 1000000).view({500000, 2}).to(at::kDouble);
  EXPECT_NEAR((k.select(1, 0) * k.select(1, 1)).mean().item<double>(), 0.81, 0.003);
  // Backward applies the same mask and scale.
  (y * at::arange(y.numel(), at::kFloat).view(y.sizes())).sum().backward();
  at::Tensor expected = at::arange(y.numel(), at::kFloat).view(y.sizes()) * y.detach();
  EXPECT_TRUE(at::allclose(x.grad(), expected));
  // Eval mode and p = 0 are the identity.
  EXPECT_TRUE(ops::dropout(x, 0.1, false).is_same(x));
  EXPECT_TRUE(ops::dropout(x, 0.0, true).is_same(x));
}

TEST(Ops, DropoutIsReproducibleAndThreadCountIndependent) {
  at::Tensor x = at::randn({64, 4099}).to(at::kBFloat16);
  const int threads = at::get_num_threads();
  torch::manual_seed(12);
  at::set_num_threads(1);
  at::Tensor a = ops::dropout(x, 0.3, true);
  torch::manual_seed(12);
  at::set_num_threads(2);
  at::Tensor b = ops::dropout(x, 0.3, true);
  at::set_num_threads(threads);
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_EQ(a.scalar_type(), at::kBFloat16);
  at::Tensor c = ops::dropout(x, 0.3, true);  // next draw: a different mask
  EXPECT_FALSE(at::equal(a, c));
}

TEST(Ops, Bf16DropoutIsFloatDropoutRounded) {
  // The same draw masks both dtypes alike, and a kept bf16 element is float(x) * scale rounded to
  // nearest-even, as c10::BFloat16 rounds; NaN stays NaN, infinities stay infinite.
  at::Tensor x = at::randn({37, 1001}).to(at::kBFloat16);
  x[0][0] = std::numeric_limits<float>::quiet_NaN();
  x[0][1] = std::numeric_limits<float>::infinity();
  x[0][2] = -std::numeric_limits<float>::infinity();
  x[0][3] = 3.3895e38f;  // near bf16's largest: scaled, it rounds up to infinity
  torch::manual_seed(21);
  at::Tensor b = ops::dropout(x, 0.25, true);
  torch::manual_seed(21);
  at::Tensor f = ops::dropout(x.to(at::kFloat), 0.25, true).to(at::kBFloat16);
  EXPECT_TRUE(at::equal(b.isnan(), f.isnan()));
  at::Tensor ok = b.isnan().logical_not();
  EXPECT_TRUE(at::equal(b.masked_select(ok), f.masked_select(ok)));

  // A view starting at an odd element (not word-aligned) is masked like its contiguous copy.
  at::Tensor view = x.reshape({-1}).narrow(0, 1, 5001);
  torch::manual_seed(22);
  at::Tensor v = ops::dropout(view, 0.25, true);
  torch::manual_seed(22);
  at::Tensor c = ops::dropout(view.clone(), 0.25, true);
  EXPECT_TRUE(at::equal(v.isnan(), c.isnan()));
  EXPECT_TRUE(at::equal(v.masked_select(v.isnan().logical_not()), c.masked_select(c.isnan().logical_not())));
}

TEST(Ops, LinearGradientsAreContiguousAndInTheParameterDtype) {
  torch::manual_seed(13);
  at::Tensor x = at::randn({2, 5, 8}).requires_grad_();
  at::Tensor w = at::randn({6, 8}).requires_grad_();
  at::Tensor b = at::randn({6}).requires_grad_();
  at::Tensor y = ops::linear(x, w, b);
  EXPECT_EQ(y.sizes(), at::IntArrayRef({2, 5, 6}));
  expect_close(y, at::linear(x, w, b), 1e-6, 1e-6, "fp32 linear");
  y.pow(2).sum().backward();
  at::Tensor gx = x.grad().clone(), gw = w.grad().clone(), gb = b.grad().clone();
  EXPECT_TRUE(gw.is_contiguous());
  x.mutable_grad() = w.mutable_grad() = b.mutable_grad() = at::Tensor();
  at::linear(x, w, b).pow(2).sum().backward();
  expect_close(gx, x.grad(), 1e-5, 1e-6, "dx");
  expect_close(gw, w.grad(), 1e-5, 1e-6, "dw");
  expect_close(gb, b.grad(), 1e-5, 1e-6, "db");

  x.mutable_grad() = w.mutable_grad() = b.mutable_grad() = at::Tensor();
  {
    torch_compat::AutocastGuard autocast(c10::DeviceType::CPU, at::kBFloat16);
    y = ops::linear(x, w, b);
  }
  EXPECT_EQ(y.scalar_type(), at::kBFloat16);
  y.to(at::kFloat).pow(2).sum().backward();
  EXPECT_EQ(w.grad().scalar_type(), at::kFloat);
  EXPECT_EQ(x.grad().scalar_type(), at::kFloat);
  expect_close(w.grad(), gw, 0.03, 0.05, "bf16 dw");
}

}  // namespace
}  // namespace bertpt::model
