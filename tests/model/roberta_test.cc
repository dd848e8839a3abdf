// RoBERTa / XLM-R (model/roberta.h): position ids counted from padding_idx + 1 as transformers'
// create_position_ids_from_input_ids, padding (left or right) that changes nothing, transformers'
// parameter names, its initialisation, the checkpoint's keys tied and untied, save/load, the longest
// input, and the classifiers (RobertaFor{Sequence,Token}Classification). Equality with transformers
// itself is tests/peer/roberta_peer.py.
#include "model/roberta.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/test_util.h"
#include "io/safetensors.h"
#include "model/architecture.h"
#include "model/checkpoint.h"

namespace bertpt::model {
namespace {

using bertpt::testing::error_of;
using bertpt::testing::TempDir;

constexpr int64_t kPad = 1;

BertConfig tiny_config(const std::string& model_type = "roberta") {
  BertConfig c = roberta_defaults(model_type);
  c.vocab_size = 50;
  c.hidden_size = 16;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 2;
  c.intermediate_size = 32;
  c.max_position_embeddings = 20;  // 18 tokens after pad_token_id + 1
  c.type_vocab_size = 1;
  c.layer_norm_eps = 1e-5;
  c.hidden_dropout_prob = 0.0;
  c.attention_probs_dropout_prob = 0.0;
  c.initializer_range = 0.2;  // outputs far from uniform
  return c;
}

std::set<std::string> names_of(const torch::nn::Module& m) {
  std::set<std::string> names;
  for (const auto& item : m.named_parameters()) names.insert(item.key());
  return names;
}

std::vector<int64_t> row(const at::Tensor& t, int64_t i) {
  at::Tensor r = t[i].contiguous();
  return {r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + r.numel()};
}

TEST(RobertaPositions, CountFromPaddingIdxPlusOne) {
  // <s>=0 <pad>=1 </s>=2: right padding, left padding, a pad id inside the text, no padding.
  const at::Tensor ids = at::tensor({0, 7, 8, 2, 1, 1,  //
                                     1, 1, 0, 7, 8, 2,  //
                                     0, 7, 1, 8, 2, 1,  //
                                     0, 7, 8, 9, 3, 2},
                                    at::kLong)
                             .view({4, 6});
  const at::Tensor pos = position_ids_from_input_ids(ids, kPad);
  EXPECT_EQ(pos.scalar_type(), at::kLong);
  EXPECT_EQ(row(pos, 0), (std::vector<int64_t>{2, 3, 4, 5, 1, 1}));
  EXPECT_EQ(row(pos, 1), (std::vector<int64_t>{1, 1, 2, 3, 4, 5}));  // left padding: the text starts at 2
  EXPECT_EQ(row(pos, 2), (std::vector<int64_t>{2, 3, 1, 4, 5, 1}));  // a pad id is skipped wherever it is
  EXPECT_EQ(row(pos, 3), (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
  // transformers' formula in its own words: (cumsum(mask) * mask) + padding_idx, for another pad.
  const at::Tensor other = at::randint(0, 4, {3, 9}, at::kLong);
  at::Tensor mask = other.ne(3).to(at::kInt);
  at::Tensor want = (at::cumsum(mask, 1).to(at::kInt) * mask).to(at::kLong) + 3;
  EXPECT_TRUE(at::equal(position_ids_from_input_ids(other, 3), want));
}

TEST(Roberta, ParameterNamesAreTransformers) {
  RobertaForMaskedLM model(tiny_config());
  std::set<std::string> expected = {"roberta.embeddings.word_embeddings.weight",
                                    "roberta.embeddings.position_embeddings.weight",
                                    "roberta.embeddings.token_type_embeddings.weight",
                                    "roberta.embeddings.LayerNorm.weight",
                                    "roberta.embeddings.LayerNorm.bias",
                                    "lm_head.dense.weight",
                                    "lm_head.dense.bias",
                                    "lm_head.layer_norm.weight",
                                    "lm_head.layer_norm.bias",
                                    "lm_head.bias"};
  for (int i = 0; i < 2; ++i) {
    const std::string l = "roberta.encoder.layer." + std::to_string(i) + ".";
    for (const char* p :
         {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
          "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"}) {
      expected.insert(l + p + ".weight");
      expected.insert(l + p + ".bias");
    }
  }
  EXPECT_EQ(names_of(*model), expected);
  EXPECT_EQ(model->roberta->embeddings->position_embeddings.size(0), 20);
  EXPECT_EQ(model->roberta->embeddings->token_type_embeddings.size(0), 1);

  BertConfig untied = tiny_config();
  untied.tie_word_embeddings = false;
  RobertaForMaskedLM u(untied);
  std::set<std::string> names = names_of(*u);
  EXPECT_EQ(names.count("lm_head.bias"), 0u);
  EXPECT_EQ(names.count("lm_head.decoder.weight"), 1u);
  EXPECT_EQ(names.count("lm_head.decoder.bias"), 1u);

  auto x = make_masked_lm(tiny_config("xlm-roberta"));
  EXPECT_NE(std::dynamic_pointer_cast<RobertaForMaskedLMImpl>(x), nullptr);
  EXPECT_EQ(names_of(*x), expected);
}

TEST(Roberta, InitialisesLikeTransformers) {
  torch::manual_seed(1);
  RobertaForMaskedLM model(tiny_config());
  const auto& e = model->roberta->embeddings;
  // nn.Embedding(padding_idx=pad): both the word and the position table's pad rows are zero.
  EXPECT_EQ(e->word_embeddings[kPad].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(e->position_embeddings[kPad].abs().sum().item<double>(), 0.0);
  EXPECT_GT(e->position_embeddings[kPad + 1].abs().sum().item<double>(), 0.0);
  EXPECT_TRUE(at::equal(model->head_norm.weight, at::ones({16})));
  EXPECT_TRUE(at::equal(model->head_norm.bias, at::zeros({16})));
  EXPECT_TRUE(at::equal(model->decoder_bias, at::zeros({50})));
  EXPECT_NEAR(model->dense.weight.std().item<double>(), 0.2, 0.05);
}

TEST(Roberta, PaddingLeftOrRightChangesNothing) {
  torch::manual_seed(2);
  auto model = make_masked_lm(tiny_config());
  model->eval();
  at::NoGradGuard no_grad;
  const std::vector<int64_t> text = {0, 11, 12, 13, 14, 2};                       // <s> ... </s>
  at::Tensor alone = model->logits(at::tensor(text, at::kLong).unsqueeze(0))[0];  // [6, V]

  std::vector<int64_t> right = text, left(3, kPad);
  right.insert(right.end(), 3, kPad);
  left.insert(left.end(), text.begin(), text.end());
  at::Tensor ids = at::tensor(right, at::kLong).view({1, 9});
  ids = at::cat({ids, at::tensor(left, at::kLong).view({1, 9})});  // [2, 9]
  at::Tensor mask = ids.ne(kPad).to(at::kLong);
  at::Tensor logits = model->logits(ids, mask);
  EXPECT_TRUE(at::allclose(logits[0].slice(0, 0, 6), alone, 1e-5, 1e-5));
  EXPECT_TRUE(at::allclose(logits[1].slice(0, 3, 9), alone, 1e-5, 1e-5));
  // Positions matter (the check can fail): the text shifted by one token is not the same.
  std::vector<int64_t> shifted = text;
  shifted.insert(shifted.begin(), 0);
  at::Tensor moved = model->logits(at::tensor(shifted, at::kLong).unsqueeze(0))[0].slice(0, 1, 7);
  EXPECT_FALSE(at::allclose(moved, alone, 1e-3, 1e-3));
}

TEST(Roberta, PadPositionGetsNoGradient) {
  torch::manual_seed(3);
  auto model = std::make_shared<RobertaForMaskedLMImpl>(tiny_config());
  model->train();
  at::Tensor ids = at::tensor(std::vector<int64_t>{0, 11, 12, 13, 2, kPad, kPad, kPad}, at::kLong).view({1, 8});
  at::Tensor labels = at::full({1, 8}, -100, at::kLong);
  labels[0][2] = 12;
  MlmOutput out = model->forward(ids, ids.ne(kPad).to(at::kLong), {}, labels);
  out.loss_sum.backward();
  const at::Tensor g = model->roberta->embeddings->position_embeddings.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_EQ(g[kPad].abs().sum().item<double>(), 0.0);
  EXPECT_GT(g[kPad + 1].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(g[0].abs().sum().item<double>(), 0.0);  // position 0 is never used
}

TEST(Roberta, CheckpointHasTransformersKeysTiedAndUntied) {
  for (const bool tied : {true, false}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    torch::manual_seed(4);
    BertConfig c = tiny_config(tied ? "roberta" : "xlm-roberta");
    c.tie_word_embeddings = tied;
    auto model = make_masked_lm(c);
    model->eval();
    TempDir tmp;
    save_pretrained(tmp.file("m"), *model);
    const BertConfig saved = BertConfig::load(tmp.file("m/config.json"));
    EXPECT_EQ(saved.architectures, std::vector<std::string>{tied ? "RobertaForMaskedLM" : "XLMRobertaForMaskedLM"});
    EXPECT_EQ(saved.tie_word_embeddings, tied);
    io::SafetensorsFile f = io::SafetensorsFile::open(tmp.file("m/model.safetensors"));
    std::set<std::string> keys;
    for (const auto& t : f.tensors()) keys.insert(t.name);
    // transformers 5 writes lm_head.bias either way, lm_head.decoder.* only untied.
    EXPECT_EQ(keys.count("lm_head.bias"), 1u);
    EXPECT_EQ(keys.count("lm_head.decoder.weight"), tied ? 0u : 1u);
    EXPECT_EQ(keys.count("lm_head.decoder.bias"), tied ? 0u : 1u);
    EXPECT_EQ(keys.count("roberta.embeddings.word_embeddings.weight"), 1u);
    EXPECT_EQ(keys.size(), 10u + 16u * 2 + (tied ? 0u : 2u));

    LoadReport report;
    auto loaded = load_pretrained(tmp.file("m"), c10::Device(c10::kCPU), &report);
    EXPECT_TRUE(report.missing.empty());
    EXPECT_TRUE(report.unexpected.empty()) << report.unexpected.size();
    EXPECT_EQ(loaded->config(), model->config());
    at::NoGradGuard no_grad;
    at::Tensor ids = at::randint(3, 50, {2, 9}, at::kLong);
    EXPECT_TRUE(at::equal(model->logits(ids), loaded->logits(ids)));
    // Written again, the file is the same bytes: every tensor round-trips.
    save_pretrained(tmp.file("again"), *loaded);
    EXPECT_EQ(bertpt::testing::slurp(tmp.file("again/model.safetensors")),
              bertpt::testing::slurp(tmp.file("m/model.safetensors")));
  }
}

TEST(Roberta, UntiedHeadBiasRoundTripsUnused) {
  // transformers 5's untied model holds lm_head.bias beside lm_head.decoder.bias and uses only the
  // decoder's: both come back as they were, and the logits follow the decoder's.
  torch::manual_seed(7);
  BertConfig c = tiny_config();
  c.tie_word_embeddings = false;
  auto model = std::make_shared<RobertaForMaskedLMImpl>(c);
  {
    at::NoGradGuard no_grad;
    model->unused_head_bias.fill_(7.0);
    model->decoder_bias.normal_();
  }
  model->eval();
  TempDir tmp;
  save_pretrained(tmp.file("m"), *model);
  auto loaded = std::dynamic_pointer_cast<RobertaForMaskedLMImpl>(load_pretrained(tmp.file("m")));
  ASSERT_NE(loaded, nullptr);
  EXPECT_TRUE(at::equal(loaded->unused_head_bias, model->unused_head_bias));
  EXPECT_TRUE(at::equal(loaded->decoder_bias, model->decoder_bias));
  at::NoGradGuard no_grad;
  at::Tensor ids = at::randint(3, 50, {1, 6}, at::kLong);
  EXPECT_TRUE(at::equal(loaded->logits(ids), model->logits(ids)));
  // A file with the decoder's bias only (older writers): lm_head.bias is filled from it.
  io::SafetensorsFile f = io::SafetensorsFile::open(tmp.file("m/model.safetensors"));
  io::SafetensorsWriter w;
  for (const auto& t : f.tensors()) {
    if (t.name != "lm_head.bias") w.add(t.name, t.dtype, t.shape, t.data, t.nbytes);
  }
  w.write(tmp.file("decoder-only.safetensors"));
  RobertaForMaskedLM m(c);
  LoadReport r = load_safetensors(*m, tmp.file("decoder-only.safetensors"));
  EXPECT_TRUE(r.missing.empty() && r.unexpected.empty());
  EXPECT_TRUE(at::equal(m->unused_head_bias, model->decoder_bias));
}

TEST(Roberta, TiedFileWithBothCopiesAndAnOldPositionIdsBuffer) {
  // What older transformers wrote: lm_head.decoder.weight and .bias beside the tied tensors, the
  // position_ids buffer and a pooler (RobertaModel's) in a MaskedLM file.
  torch::manual_seed(5);
  RobertaForMaskedLM model(tiny_config());
  TempDir tmp;
  io::SafetensorsWriter w;
  std::vector<at::Tensor> keep;
  auto add = [&](const std::string& name, const at::Tensor& t) {
    keep.push_back(t.detach().to(at::kFloat).contiguous());
    const at::Tensor& c = keep.back();
    w.add(name, io::DType::F32, std::vector<int64_t>(c.sizes().begin(), c.sizes().end()), c.data_ptr(), c.nbytes());
  };
  for (const auto& item : model->named_parameters()) add(item.key(), item.value());
  add("lm_head.decoder.weight", model->roberta->embeddings->word_embeddings);
  add("lm_head.decoder.bias", model->decoder_bias);
  add("roberta.embeddings.position_ids", at::arange(20, at::kFloat).unsqueeze(0));
  add("roberta.pooler.dense.weight", at::zeros({16, 16}));
  w.write(tmp.file("old.safetensors"));
  RobertaForMaskedLM m(tiny_config());
  LoadReport r = load_safetensors(*m, tmp.file("old.safetensors"));
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(r.unexpected, std::vector<std::string>{"roberta.pooler.dense.weight"});
  EXPECT_TRUE(at::equal(m->decoder_bias, model->decoder_bias));
}

TEST(Roberta, LongestInputIsMaxPositionsLessPadPlusOne) {
  auto model = make_masked_lm(tiny_config());
  model->eval();
  at::NoGradGuard no_grad;
  EXPECT_EQ(model->logits(at::randint(3, 50, {1, 18}, at::kLong)).size(1), 18);
  const std::string err = error_of([&] { model->logits(at::randint(3, 50, {1, 19}, at::kLong)); });
  EXPECT_NE(err.find("sequence length 19 exceeds the 18 tokens"), std::string::npos) << err;
  EXPECT_NE(err.find("max_position_embeddings (20"), std::string::npos) << err;
}

TEST(Roberta, EncoderAloneLoadsTheMaskedLmFile) {
  torch::manual_seed(6);
  auto model = std::make_shared<RobertaForMaskedLMImpl>(tiny_config());
  model->eval();
  TempDir tmp;
  save_pretrained(tmp.file("m"), *model);
  Encoder enc = make_encoder(tiny_config());
  LoadReport r = load_safetensors(*enc.module, tmp.file("m/model.safetensors"));
  EXPECT_EQ(r.unexpected.size(), 5u);  // lm_head.*
  enc.module->eval();
  at::NoGradGuard no_grad;
  at::Tensor ids = at::tensor(std::vector<int64_t>{0, 11, 12, 2, kPad}, at::kLong).view({1, 5});
  at::Tensor mask = ids.ne(kPad).to(at::kLong);
  EXPECT_TRUE(at::equal(enc.forward(ids, mask), model->roberta->forward(ids, mask)));
}

TEST(Roberta, ClassifiersHaveTransformersNamesAndHeads) {
  torch::manual_seed(8);
  auto seq = make_sequence_classifier(tiny_config(), 3);
  auto tok = make_token_classifier(tiny_config("xlm-roberta"), 4);
  std::set<std::string> seq_head, tok_head;
  for (const auto& [name, p] : named_parameter_list(*seq)) {
    EXPECT_EQ(name.rfind("roberta.", 0) == 0 || name.rfind("classifier.", 0) == 0, true) << name;
    EXPECT_EQ(name.find("pooler"), std::string::npos) << name;
    if (name.rfind("classifier.", 0) == 0) seq_head.insert(name);
  }
  for (const auto& [name, p] : named_parameter_list(*tok)) {
    if (name.rfind("classifier", 0) == 0) tok_head.insert(name);
  }
  EXPECT_EQ(seq_head, (std::set<std::string>{"classifier.dense.weight", "classifier.dense.bias",
                                             "classifier.out_proj.weight", "classifier.out_proj.bias"}));
  EXPECT_EQ(tok_head, (std::set<std::string>{"classifier.weight", "classifier.bias"}));
  // transformers' init: N(0, initializer_range) weights, zero biases.
  auto* r = dynamic_cast<RobertaClassifierImpl*>(seq.get());
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(at::equal(r->out_proj.bias, at::zeros({3})));
  EXPECT_NEAR(r->dense.weight.std().item<double>(), 0.2, 0.05);  // tiny_config().initializer_range

  // Eval mode: out_proj(tanh(dense(hidden[:, 0]))) for a sequence, classifier(hidden) per token.
  seq->eval();
  tok->eval();
  at::NoGradGuard no_grad;
  at::Tensor ids = at::tensor(std::vector<int64_t>{0, 11, 12, 13, 2, 0, 21, 2, kPad, kPad}, at::kLong).view({2, 5});
  at::Tensor mask = ids.ne(kPad).to(at::kLong);
  at::Tensor h = r->roberta->forward(ids, mask).select(1, 0);
  at::Tensor want = at::linear(at::tanh(at::linear(h, r->dense.weight, r->dense.bias)), r->out_proj.weight,
                               r->out_proj.bias);
  EXPECT_TRUE(at::allclose(seq->forward(ids, mask), want, 1e-5, 1e-6));
  auto* t = dynamic_cast<RobertaClassifierImpl*>(tok.get());
  ASSERT_NE(t, nullptr);
  at::Tensor per_token = at::linear(t->roberta->forward(ids, mask), t->classifier.weight, t->classifier.bias);
  EXPECT_TRUE(at::allclose(tok->forward(ids, mask), per_token, 1e-5, 1e-6));
  EXPECT_EQ(tok->forward(ids, mask).sizes(), (std::vector<int64_t>{2, 5, 4}));
}

TEST(Roberta, ClassifierFromAMaskedLmDropsTheLmHeadAndMakesANewHead) {
  torch::manual_seed(9);
  auto mlm = std::make_shared<RobertaForMaskedLMImpl>(tiny_config());
  TempDir tmp;
  save_pretrained(tmp.file("m"), *mlm);
  for (bool per_token : {false, true}) {
    LoadReport report;
    auto clf = per_token ? load_token_classifier(tmp.file("m"), 2, nullptr, &report)
                         : load_sequence_classifier(tmp.file("m"), 2, nullptr, &report);
    for (const auto& name : report.missing) EXPECT_EQ(name.rfind("classifier", 0), 0u) << name;
    EXPECT_EQ(report.missing.size(), per_token ? 2u : 4u);
    for (const auto& name : report.unexpected) EXPECT_EQ(name.rfind("lm_head.", 0), 0u) << name;
    auto* r = dynamic_cast<RobertaClassifierImpl*>(clf.get());
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(at::equal(r->roberta->embeddings->word_embeddings, mlm->roberta->embeddings->word_embeddings));
  }
}

TEST(Roberta, BinOnlyDirectoryNamesTheFileAndTheClass) {
  TempDir tmp;
  auto model = make_masked_lm(tiny_config("xlm-roberta"));
  save_pretrained(tmp.file("m"), *model);
  std::filesystem::remove(tmp.file("m/model.safetensors"));
  bertpt::testing::write_file(tmp.file("m/pytorch_model.bin"), "PK");
  std::string err, hint;
  try {
    load_pretrained(tmp.file("m"));
  } catch (const BadInput& e) {
    err = e.what();
    hint = e.hint();
  }
  EXPECT_NE(err.find(tmp.file("m/pytorch_model.bin")), std::string::npos) << err;
  EXPECT_NE(hint.find("transformers.XLMRobertaForMaskedLM.from_pretrained(dir).save_pretrained(dir, "
                      "safe_serialization=True)"),
            std::string::npos)
      << hint;
}

}  // namespace
}  // namespace bertpt::model
