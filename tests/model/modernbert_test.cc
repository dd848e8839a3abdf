// ModernBERT (model/modernbert.h): transformers' parameter names, the sliding window's reach, RoPE's
// relative-position property, padding that changes nothing, fused vs explicit attention, the config
// in both of transformers' spellings, save/load, and a tiny overfit run. Equality with transformers
// itself is tests/peer/modernbert_peer.py.
#include "model/modernbert.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cstdlib>
#include <set>

#include "common/error.h"
#include "common/test_util.h"
#include "engine/adamw.h"
#include "model/architecture.h"
#include "model/checkpoint.h"
#include "model/torch_compat.h"
#include "perf/flops.h"

namespace bertpt::model {
namespace {

BertConfig tiny_config(int64_t layers = 4, int64_t local_attention = 4) {
  BertConfig c = modernbert_defaults();
  c.vocab_size = 50;
  c.hidden_size = 16;
  c.num_hidden_layers = layers;
  c.num_attention_heads = 2;
  c.intermediate_size = 24;
  c.max_position_embeddings = 64;
  c.pad_token_id = 0;
  c.initializer_range = 0.2;
  c.modern.local_attention = local_attention;
  c.modern.layer_types.clear();
  for (int64_t i = 0; i < layers; ++i)
    c.modern.layer_types.push_back(i % 3 == 0 ? "full_attention" : "sliding_attention");
  return c;
}

// The device of the tests that also run on a GPU: $BERTPT_TEST_DEVICE ("cuda" from scripts/gpu-check),
// else the CPU.
c10::Device test_device() {
  const char* d = std::getenv("BERTPT_TEST_DEVICE");
  return c10::Device(d != nullptr && *d != '\0' ? d : "cpu");
}

std::set<std::string> names_of(const torch::nn::Module& m) {
  std::set<std::string> names;
  for (const auto& item : m.named_parameters()) names.insert(item.key());
  return names;
}

TEST(ModernBert, ParameterNamesAreTransformers) {
  ModernBertForMaskedLM model(tiny_config(2));
  const std::set<std::string> expected = {"model.embeddings.tok_embeddings.weight",
                                          "model.embeddings.norm.weight",
                                          "model.layers.0.attn.Wqkv.weight",
                                          "model.layers.0.attn.Wo.weight",
                                          "model.layers.0.mlp_norm.weight",
                                          "model.layers.0.mlp.Wi.weight",
                                          "model.layers.0.mlp.Wo.weight",
                                          "model.layers.1.attn_norm.weight",
                                          "model.layers.1.attn.Wqkv.weight",
                                          "model.layers.1.attn.Wo.weight",
                                          "model.layers.1.mlp_norm.weight",
                                          "model.layers.1.mlp.Wi.weight",
                                          "model.layers.1.mlp.Wo.weight",
                                          "model.final_norm.weight",
                                          "head.dense.weight",
                                          "head.norm.weight",
                                          "decoder.bias"};
  EXPECT_EQ(names_of(*model), expected);
  EXPECT_EQ(model->model->layers[0].wi.sizes(), (at::IntArrayRef{48, 16}));  // GeGLU: [2I, H]
  BertConfig biased = tiny_config(2);
  biased.modern.norm_bias = biased.modern.attention_bias = biased.modern.mlp_bias = true;
  biased.modern.decoder_bias = false;
  const auto b = names_of(*ModernBertForMaskedLM(biased));
  EXPECT_TRUE(b.count("model.layers.1.attn_norm.bias") && b.count("model.layers.0.attn.Wqkv.bias") &&
              b.count("model.layers.0.mlp.Wi.bias") && !b.count("decoder.bias"));
  ModernBertForSequenceClassification clf(tiny_config(2), 3);
  const auto c = names_of(*clf);
  EXPECT_TRUE(c.count("classifier.weight") && c.count("classifier.bias") && c.count("head.dense.weight"));
}

// With only sliding layers and a half-window of 2, position 0 sees at most L·2 positions ahead.
TEST(ModernBert, SlidingWindowLimitsTheReach) {
  BertConfig c = tiny_config(1, 4);
  c.modern.layer_types = {"sliding_attention"};
  ModernBertModel m(c);
  init_modernbert_weights(*m, c);
  m->eval();
  at::NoGradGuard no_grad;
  at::Tensor ids = at::randint(5, 50, {1, 12}, at::kLong);
  at::Tensor changed = ids.clone();
  changed[0][3] = (ids[0][3].item<int64_t>() + 1) % 45 + 5;
  at::Tensor a = m->forward(ids), b = m->forward(changed);
  EXPECT_TRUE(at::allclose(a[0][0], b[0][0])) << "position 0 must not see position 3 (half-window 2)";
  EXPECT_FALSE(at::allclose(a[0][1], b[0][1])) << "position 1 sees position 3";
  c.modern.layer_types = {"full_attention"};
  ModernBertModel g(c);
  init_modernbert_weights(*g, c);
  g->eval();
  EXPECT_FALSE(at::allclose(g->forward(ids)[0][0], g->forward(changed)[0][0])) << "a global layer sees everything";
}

// RoPE makes attention scores depend only on the distance: rotated q·k at (i, j) equals that at
// (i + s, j + s).
TEST(ModernBert, RotaryScoresDependOnDistanceOnly) {
  auto [cos, sin] = rotary_cos_sin(20, 8, 10000.0, c10::Device(c10::kCPU));
  at::Tensor q = at::randn({1, 1, 1, 8}).expand({1, 1, 20, 8}).contiguous();
  at::Tensor k = at::randn({1, 1, 1, 8}).expand({1, 1, 20, 8}).contiguous();
  at::Tensor qr = apply_rotary(q, cos, sin), kr = apply_rotary(k, cos, sin);
  auto score = [&](int64_t i, int64_t j) { return (qr[0][0][i] * kr[0][0][j]).sum().item<double>(); };
  EXPECT_NEAR(score(2, 5), score(12, 15), 1e-4);
  EXPECT_NEAR(score(7, 1), score(17, 11), 1e-4);
  EXPECT_GT(std::abs(score(2, 5) - score(2, 9)), 1e-3);
}

TEST(ModernBert, PaddingChangesNothingAndKernelsAgree) {
  BertConfig c = tiny_config(4, 4);
  ModernBertForMaskedLM model(c);
  model->eval();
  at::NoGradGuard no_grad;
  at::Tensor ids = at::randint(5, 50, {1, 9}, at::kLong);
  at::Tensor padded = at::cat({ids, at::zeros({1, 4}, at::kLong)}, 1);
  at::Tensor mask = at::cat({at::ones({1, 9}, at::kLong), at::zeros({1, 4}, at::kLong)}, 1);
  at::Tensor plain = model->logits(ids);
  at::Tensor with_pad = model->logits(padded, mask).narrow(1, 0, 9);
  EXPECT_TRUE(at::allclose(plain, with_pad, 1e-5, 1e-5));
  model->set_attention_kernel(AttentionKernel::Fused);
  at::Tensor fused = model->logits(padded, mask).narrow(1, 0, 9);
  EXPECT_TRUE(at::allclose(plain, fused, 1e-4, 1e-4));
  // Mean pooling ignores the padding too.
  c.modern.classifier_pooling = "mean";
  ModernBertForSequenceClassification clf(c, 2);
  clf->eval();
  EXPECT_TRUE(at::allclose(clf->forward(ids), clf->forward(padded, mask), 1e-5, 1e-5));
}

// Unpadded: a batch of two sequences of different lengths gives each sequence's loss and the sum of
// their gradients, as the two sequences run alone; the padding positions' hidden states are zeros.
TEST(ModernBert, PaddedBatchEqualsEachSequenceAlone) {
  at::manual_seed(5);
  BertConfig c = tiny_config(4, 4);
  c.modern.classifier_pooling = "mean";
  ModernBertForMaskedLM model(c);
  at::Tensor a = at::randint(5, 50, {1, 11}, at::kLong), b = at::randint(5, 50, {1, 6}, at::kLong);
  at::Tensor la = at::where(at::rand({1, 11}).lt(0.4), a, at::full_like(a, -100));
  at::Tensor lb = at::where(at::rand({1, 6}).lt(0.4), b, at::full_like(b, -100));
  la[0][1] = a[0][1], lb[0][2] = b[0][2];  // at least one label each
  auto grads = [&](const at::Tensor& loss) {
    for (auto& p : model->parameters()) p.mutable_grad() = at::Tensor();
    loss.backward();
    std::vector<at::Tensor> g;
    for (auto& p : model->parameters())
      g.push_back(p.grad().defined() ? p.grad().to_dense().clone() : at::zeros_like(p));
    return g;
  };
  const auto ga = grads(model->forward(a, {}, {}, la).loss_sum);
  const auto gb = grads(model->forward(b, {}, {}, lb).loss_sum);
  const double alone = model->forward(a, {}, {}, la).loss_sum.item<double>() +
                       model->forward(b, {}, {}, lb).loss_sum.item<double>();
  at::Tensor ids = at::zeros({2, 11}, at::kLong), mask = at::zeros({2, 11}, at::kLong);
  at::Tensor labels = at::full({2, 11}, -100, at::kLong);
  ids[0].copy_(a[0]), ids[1].narrow(0, 0, 6).copy_(b[0]);
  mask[0].fill_(1), mask[1].narrow(0, 0, 6).fill_(1);
  labels[0].copy_(la[0]), labels[1].narrow(0, 0, 6).copy_(lb[0]);
  at::Tensor loss = model->forward(ids, mask, {}, labels).loss_sum;
  EXPECT_NEAR(loss.item<double>(), alone, 1e-4);
  const auto g = grads(loss);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(at::allclose(g[i], ga[i] + gb[i], 1e-4, 1e-5)) << "parameter " << i;
  at::NoGradGuard no_grad;
  at::Tensor hidden = model->model->forward(ids, mask);  // [2, 11, H]
  EXPECT_EQ(hidden[1].narrow(0, 6, 5).abs().max().item<double>(), 0.0);
}

// Variable-length attention (packed rows; CUDA: the flash varlen kernel under bf16 autocast) equals
// attention on the [B, T] layout under the mask: right- and left-padded rows, a row of one token, the
// sliding window shorter than most rows. A row with a hole in its mask keeps the [B, T] layout.
TEST(ModernBert, VarlenAttentionEqualsPaddedAttention) {
  const c10::Device device = test_device();
  const bool bf16 = device.is_cuda();
  at::manual_seed(7);
  ModernBertForMaskedLM model(tiny_config(4, 4));
  model->to(device);
  model->train();  // the tiny config has no dropout
  const int64_t B = 6, T = 14;
  at::Tensor ids = at::randint(5, 50, {B, T}, at::kLong);
  at::Tensor mask = at::zeros({B, T}, at::kLong);
  const int64_t runs[B][2] = {{0, 14}, {0, 9}, {0, 3}, {3, 14}, {0, 1}, {5, 12}};  // [first, end) per row
  for (int64_t b = 0; b < B; ++b) mask[b].narrow(0, runs[b][0], runs[b][1] - runs[b][0]).fill_(1);
  at::Tensor labels = at::where(at::rand({B, T}).lt(0.5).logical_and(mask.eq(1)), ids, at::full_like(ids, -100));
  ids = ids.to(device), mask = mask.to(device), labels = labels.to(device);
  EXPECT_TRUE(token_layout(mask, B, T, 2, true).packed());

  struct Result {
    at::Tensor hidden;
    double loss = 0;
    std::vector<at::Tensor> grads;
  };
  auto run = [&](bool varlen) {
    model->model->varlen_attention = varlen;
    for (auto& p : model->parameters()) p.mutable_grad() = at::Tensor();
    Result r;
    MlmOutput out;
    {
      torch_compat::AutocastGuard autocast(device.type(), at::kBFloat16, bf16);
      out = model->forward(ids, mask, {}, labels);
      r.hidden = model->model->forward(ids, mask).detach().to(at::kFloat).cpu();
    }
    r.loss = out.loss_sum.item<double>();
    out.loss_sum.backward();
    for (auto& p : model->parameters()) r.grads.push_back(p.grad().to_dense().to(at::kFloat).cpu());
    return r;
  };
  const Result varlen = run(true), padded = run(false);
  const double tol = bf16 ? 3e-2 : 1e-5;
  EXPECT_NEAR(varlen.loss, padded.loss, tol * std::abs(padded.loss));
  at::Tensor keep = mask.cpu().unsqueeze(-1);
  EXPECT_TRUE(at::allclose(varlen.hidden * keep, padded.hidden * keep, tol, tol));
  for (size_t i = 0; i < varlen.grads.size(); ++i) {
    const double err = (varlen.grads[i] - padded.grads[i]).norm().item<double>();
    EXPECT_LE(err, tol * padded.grads[i].norm().item<double>() + 1e-7) << "parameter " << i;
  }
  if (device.is_cuda()) {  // the kernel the packed path took
    EXPECT_TRUE(
        torch_compat::has_flash_varlen(at::zeros({4, 2, 8}, at::TensorOptions(device).dtype(at::kBFloat16)), true));
  }
  EXPECT_THROW(token_layout(mask.narrow(1, 0, 5), B, T, 2, true), BadInput) << "a mask of another shape";
  mask[1][4] = 0;  // a hole: not one run of columns
  EXPECT_FALSE(token_layout(mask, B, T, 2, true).packed());
  EXPECT_TRUE(token_layout(mask, B, T, 2, true).index.defined());
}

TEST(ModernBert, ConfigReadsBothSpellingsAndRoundTrips) {
  const BertConfig legacy = BertConfig::from_json(R"({"model_type": "modernbert", "num_hidden_layers": 5,
      "global_attn_every_n_layers": 2, "global_rope_theta": 5000.0, "local_rope_theta": 500.0,
      "norm_eps": 1e-6, "hidden_activation": "gelu_pytorch_tanh", "vocab_size": 100, "pad_token_id": 0})");
  EXPECT_EQ(legacy.modern.layer_types,
            (std::vector<std::string>{"full_attention", "sliding_attention", "full_attention", "sliding_attention",
                                      "full_attention"}));
  EXPECT_EQ(legacy.modern.global_rope_theta, 5000.0);
  EXPECT_EQ(legacy.modern.local_rope_theta, 500.0);
  EXPECT_EQ(legacy.layer_norm_eps, 1e-6);
  EXPECT_EQ(legacy.hidden_act, "gelu_pytorch_tanh");
  EXPECT_EQ(legacy.intermediate_size, 1152);  // ModernBertConfig's default, not BERT's
  const BertConfig again = BertConfig::from_json(legacy.to_json());
  EXPECT_EQ(again, legacy);
  EXPECT_NE(legacy.to_json().find("\"rope_parameters\""), std::string::npos);
  EXPECT_NE(legacy.to_json().find("\"hidden_activation\""), std::string::npos);
  EXPECT_EQ(legacy.to_json().find("\"hidden_act\""), std::string::npos);
  EXPECT_EQ(legacy.masked_lm_class(), "ModernBertForMaskedLM");
  EXPECT_THROW(BertConfig::from_json(R"({"model_type": "modernbert", "num_hidden_layers": 2,
      "layer_types": ["full_attention"]})"),
               BadInput);
  EXPECT_THROW(BertConfig::from_json(R"({"model_type": "modernbert", "rope_parameters":
      {"full_attention": {"rope_type": "yarn", "rope_theta": 10.0}}})"),
               BadInput);
}

TEST(ModernBert, SaveLoadRoundTripAndTiedDecoder) {
  bertpt::testing::TempDir tmp;
  auto model = make_masked_lm(tiny_config());
  model->eval();
  save_pretrained(tmp.file("m"), *model);
  LoadReport report;
  auto loaded = load_pretrained(tmp.file("m"), c10::Device(c10::kCPU), &report);
  EXPECT_TRUE(report.missing.empty() && report.unexpected.empty());
  EXPECT_EQ(loaded->config(), model->config());
  at::NoGradGuard no_grad;
  at::Tensor ids = at::randint(5, 50, {2, 10}, at::kLong);
  EXPECT_TRUE(at::equal(model->logits(ids), loaded->logits(ids)));
  EXPECT_EQ(count_parameters(*loaded), count_parameters(*model));
}

TEST(ModernBert, OverfitsOneBatch) {
  at::manual_seed(3);
  BertConfig c = tiny_config(3, 4);
  auto model = make_masked_lm(c);
  model->train();
  engine::AdamW opt(named_parameter_list(*model), engine::AdamWOptions{0.9, 0.999, 1e-8, 0.0});
  at::Tensor ids = at::randint(5, 50, {4, 12}, at::kLong);
  at::Tensor labels = at::full({4, 12}, -100, at::kLong);
  labels.index_put_({at::indexing::Slice(), at::indexing::Slice(2, 12, 3)},
                    ids.index({at::indexing::Slice(), at::indexing::Slice(2, 12, 3)}));
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    MlmOutput out = model->forward(ids, {}, {}, labels);
    at::Tensor loss = out.loss_sum / double(out.num_masked);
    for (auto& p : model->parameters()) p.mutable_grad() = at::Tensor();
    loss.backward();
    opt.step(1e-2);
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, 0.1 * first);
}

TEST(ModernBert, FlopsCountTheSlidingWindow) {
  BertConfig c = tiny_config(3, 4);  // one global, two sliding layers; half-window 2
  const perf::BertFlops f(c);
  EXPECT_DOUBLE_EQ(f.mean_keys_per_query(100, true), 5.0 - 6.0 / 100);
  EXPECT_DOUBLE_EQ(f.mean_keys_per_query(100, false), 100.0);
  EXPECT_DOUBLE_EQ(f.mean_keys_per_query(3, true), 3.0);  // the window covers the sequence
  BertConfig global = c;
  global.modern.layer_types.assign(3, "full_attention");
  EXPECT_LT(f.train_flops(1, 100, 15), perf::BertFlops(global).train_flops(1, 100, 15));
  EXPECT_DOUBLE_EQ(f.encoder_matmul_params, 3.0 * (4 * 16 * 16 + 3 * 16 * 24));
}

}  // namespace
}  // namespace bertpt::model
