// Checkpoint directories in transformers' layout: config.json + model.safetensors with HF names,
// tied weights stored once, atomic writes, and loading with HF's aliases and clear errors.
#include "model/checkpoint.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <filesystem>
#include <functional>

#include "common/error.h"
#include "common/test_util.h"
#include "io/safetensors.h"
#include "model/bert.h"

namespace bertpt::model {
namespace {

namespace fs = std::filesystem;
using bertpt::testing::TempDir;

BertConfig small_config() {
  BertConfig c;
  c.vocab_size = 40;
  c.hidden_size = 16;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 2;
  c.intermediate_size = 32;
  c.max_position_embeddings = 12;
  c.hidden_dropout_prob = 0.0;
  c.attention_probs_dropout_prob = 0.0;
  return c;
}

using testing::error_of;

bool same_parameters(const torch::nn::Module& a, const torch::nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  if (pa.size() != pb.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i) {
    if (pa[i].key() != pb[i].key() || !at::equal(pa[i].value(), pb[i].value())) return false;
  }
  return true;
}

// Writes a safetensors file from (name, tensor) pairs, converting to F32.
void write_tensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors) {
  io::SafetensorsWriter w;
  for (const auto& [name, t] : tensors) {
    at::Tensor c = t.detach().to(at::kFloat).contiguous();
    w.add(name, io::DType::F32, std::vector<int64_t>(c.sizes().begin(), c.sizes().end()), c.data_ptr(), c.nbytes());
  }
  w.write(path);
}

std::vector<std::pair<std::string, at::Tensor>> state_of(const torch::nn::Module& m) {
  std::vector<std::pair<std::string, at::Tensor>> s;
  for (const auto& item : m.named_parameters()) s.emplace_back(item.key(), item.value());
  return s;
}

TEST(Checkpoint, SavePretrainedWritesTransformersLayout) {
  torch::manual_seed(1);
  BertForMaskedLM model(small_config());
  TempDir tmp;
  const std::string dir = tmp.file("ckpt");
  save_pretrained(dir, *model);

  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(tmp.path())) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"ckpt"});  // no temporary left behind
  EXPECT_TRUE(fs::is_regular_file(dir + "/config.json"));
  EXPECT_TRUE(fs::is_regular_file(dir + "/model.safetensors"));

  BertConfig saved = BertConfig::load(dir + "/config.json");
  EXPECT_EQ(saved.architectures, std::vector<std::string>{"BertForMaskedLM"});
  EXPECT_EQ(saved.torch_dtype, "float32");
  EXPECT_EQ(saved.vocab_size, 40);
  EXPECT_NE(bertpt::testing::slurp(dir + "/config.json").find("\"model_type\": \"bert\""), std::string::npos);

  io::SafetensorsFile f = io::SafetensorsFile::open(dir + "/model.safetensors");
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.tensors().size(), model->named_parameters().size());
  EXPECT_NE(f.find("bert.embeddings.word_embeddings.weight"), nullptr);
  EXPECT_EQ(f.find("cls.predictions.decoder.weight"), nullptr);  // tied: stored once
  EXPECT_NE(f.find("cls.predictions.bias"), nullptr);
  for (const auto& t : f.tensors()) EXPECT_EQ(t.dtype, io::DType::F32) << t.name;
}

TEST(Checkpoint, LoadRoundTripAndByteExactResave) {
  torch::manual_seed(2);
  BertForMaskedLM model(small_config());
  TempDir tmp;
  save_pretrained(tmp.file("a"), *model);
  LoadReport report;
  auto loaded = load_pretrained(tmp.file("a"), c10::Device(c10::kCPU), &report);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.unexpected.empty());
  EXPECT_EQ(report.loaded.size(), model->named_parameters().size());
  EXPECT_TRUE(same_parameters(*model, *loaded));
  EXPECT_FALSE(loaded->is_training());

  model->eval();
  at::Tensor ids = at::randint(5, 40, {2, 9}, at::kLong);
  EXPECT_TRUE(at::equal(model->logits(ids), loaded->logits(ids)));

  save_pretrained(tmp.file("b"), *loaded);
  EXPECT_EQ(bertpt::testing::slurp(tmp.file("a/model.safetensors")),
            bertpt::testing::slurp(tmp.file("b/model.safetensors")));
  EXPECT_EQ(bertpt::testing::slurp(tmp.file("a/config.json")), bertpt::testing::slurp(tmp.file("b/config.json")));
}

TEST(Checkpoint, Bfloat16Checkpoint) {
  torch::manual_seed(3);
  BertForMaskedLM model(small_config());
  TempDir tmp;
  save_pretrained(tmp.file("bf16"), *model, at::kBFloat16);
  EXPECT_EQ(BertConfig::load(tmp.file("bf16/config.json")).torch_dtype, "bfloat16");
  io::SafetensorsFile f = io::SafetensorsFile::open(tmp.file("bf16/model.safetensors"));
  for (const auto& t : f.tensors()) EXPECT_EQ(t.dtype, io::DType::BF16) << t.name;
  auto loaded = load_pretrained(tmp.file("bf16"));
  auto a = model->named_parameters(), b = loaded->named_parameters();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].value().scalar_type(), at::kFloat);
    EXPECT_TRUE(at::allclose(a[i].value(), b[i].value(), 1e-2, 1e-6)) << a[i].key();
  }
}

TEST(Checkpoint, TiedKeyIsAcceptedEitherWay) {
  torch::manual_seed(4);
  BertForMaskedLM model(small_config());
  TempDir tmp;
  auto state = state_of(*model);

  // Only the decoder's name for the tied matrix (some exporters write that one).
  auto decoder_only = state;
  for (auto& [name, t] : decoder_only) {
    if (name == "bert.embeddings.word_embeddings.weight") name = "cls.predictions.decoder.weight";
  }
  write_tensors(tmp.file("dec.safetensors"), decoder_only);
  BertForMaskedLM a(small_config());
  LoadReport r = load_safetensors(*a, tmp.file("dec.safetensors"));
  EXPECT_TRUE(same_parameters(*model, *a));
  EXPECT_TRUE(r.unexpected.empty());

  // Both names, plus the old decoder.bias copy and position_ids buffer (older transformers).
  auto both = state;
  both.emplace_back("cls.predictions.decoder.weight", model->bert->embeddings->word_embeddings);
  both.emplace_back("cls.predictions.decoder.bias", model->decoder_bias);
  both.emplace_back("bert.embeddings.position_ids", at::arange(12).unsqueeze(0).to(at::kFloat));
  write_tensors(tmp.file("both.safetensors"), both);
  BertForMaskedLM b(small_config());
  r = load_safetensors(*b, tmp.file("both.safetensors"));
  EXPECT_TRUE(same_parameters(*model, *b));
  EXPECT_TRUE(r.unexpected.empty()) << r.unexpected.front();
}

TEST(Checkpoint, UntiedDecoderHasAWeightOfItsOwn) {
  torch::manual_seed(6);
  BertConfig config = small_config();
  config.tie_word_embeddings = false;
  BertForMaskedLM model(config);
  ASSERT_TRUE(model->decoder_weight.defined());
  EXPECT_FALSE(at::equal(model->decoder_weight, model->bert->embeddings->word_embeddings));
  TempDir tmp;
  save_pretrained(tmp.file("untied"), *model);
  EXPECT_FALSE(BertConfig::load(tmp.file("untied/config.json")).tie_word_embeddings);
  EXPECT_NE(bertpt::testing::slurp(tmp.file("untied/config.json")).find("\"tie_word_embeddings\": false"),
            std::string::npos);
  io::SafetensorsFile f = io::SafetensorsFile::open(tmp.file("untied/model.safetensors"));
  EXPECT_NE(f.find("cls.predictions.decoder.weight"), nullptr);
  // transformers 5 reads the untied decoder's own bias, transformers 4 the head's: both written.
  ASSERT_NE(f.find("cls.predictions.decoder.bias"), nullptr);
  ASSERT_NE(f.find("cls.predictions.bias"), nullptr);

  LoadReport report;
  auto loaded = load_pretrained(tmp.file("untied"), c10::Device(c10::kCPU), &report);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.unexpected.empty());
  EXPECT_TRUE(same_parameters(*model, *loaded));
  model->eval();
  at::Tensor ids = at::randint(5, 40, {2, 7}, at::kLong);
  EXPECT_TRUE(at::equal(model->logits(ids), loaded->logits(ids)));

  // A transformers 5 file whose two biases differ: the decoder's own is the one used.
  {
    auto state = state_of(*model);
    state.emplace_back("cls.predictions.bias", at::full_like(model->decoder_bias, 7.0));
    write_tensors(tmp.file("untied/model.safetensors"), state);
    auto b = std::dynamic_pointer_cast<BertForMaskedLMImpl>(load_pretrained(tmp.file("untied")));
    EXPECT_TRUE(at::equal(b->decoder_bias, model->decoder_bias));
  }
  // The same weights under a config that says tied: refused, not silently tied.
  config.tie_word_embeddings = true;
  config.save(tmp.file("untied/config.json"));
  const std::string e = error_of([&] { load_pretrained(tmp.file("untied")); });
  EXPECT_NE(e.find("decoder is untied"), std::string::npos) << e;
  EXPECT_NE(e.find("tie_word_embeddings"), std::string::npos) << e;
}

TEST(Checkpoint, AcceptsOldNamesAndReportsExtraAndMissing) {
  torch::manual_seed(5);
  BertForMaskedLM model(small_config());
  TempDir tmp;
  // A bare BertModel checkpoint with TF-era LayerNorm.gamma/beta names and an NSP head.
  std::vector<std::pair<std::string, at::Tensor>> old;
  for (auto [name, t] : state_of(*model)) {
    if (name.rfind("cls.", 0) == 0) continue;
    name = name.substr(5);  // drop "bert."
    if (name.size() > 16 && name.compare(name.size() - 16, 16, "LayerNorm.weight") == 0)
      name.replace(name.size() - 6, 6, "gamma");
    if (name.size() > 14 && name.compare(name.size() - 14, 14, "LayerNorm.bias") == 0)
      name.replace(name.size() - 4, 4, "beta");
    old.emplace_back(name, t);
  }
  old.emplace_back("cls.seq_relationship.weight", at::zeros({2, 16}));
  write_tensors(tmp.file("old.safetensors"), old);

  BertForMaskedLM m(small_config());
  std::string err = error_of([&] { load_safetensors(*m, tmp.file("old.safetensors")); });
  EXPECT_NE(err.find("missing tensors"), std::string::npos) << err;
  EXPECT_NE(err.find("cls.predictions.bias"), std::string::npos) << err;

  LoadReport r = load_safetensors(*m, tmp.file("old.safetensors"), /*allow_missing=*/true);
  EXPECT_EQ(r.missing, (std::vector<std::string>{"cls.predictions.bias", "cls.predictions.transform.dense.weight",
                                                 "cls.predictions.transform.dense.bias",
                                                 "cls.predictions.transform.LayerNorm.weight",
                                                 "cls.predictions.transform.LayerNorm.bias"}));
  EXPECT_EQ(r.unexpected, std::vector<std::string>{"cls.seq_relationship.weight"});
  EXPECT_TRUE(same_parameters(*model->bert, *m->bert));

  // The encoder alone loads an MLM checkpoint (its "bert." prefix stripped), cls.* unexpected.
  save_safetensors(*model, tmp.file("mlm.safetensors"));
  BertModel encoder(small_config());
  r = load_safetensors(*encoder, tmp.file("mlm.safetensors"));
  EXPECT_TRUE(same_parameters(*model->bert, *encoder));
  EXPECT_EQ(r.unexpected.size(), 5u);
}

TEST(Checkpoint, ShapeMismatchNamesTheTensor) {
  BertForMaskedLM model(small_config());
  TempDir tmp;
  save_pretrained(tmp.file("c"), *model);
  BertConfig other = small_config();
  other.vocab_size = 41;
  BertForMaskedLM m(other);
  std::string err = error_of([&] { load_safetensors(*m, tmp.file("c/model.safetensors")); });
  EXPECT_NE(err.find("'bert.embeddings.word_embeddings.weight' has shape [40, 16]"), std::string::npos) << err;
  EXPECT_NE(err.find("[41, 16]"), std::string::npos) << err;
}

TEST(Checkpoint, BadDirectoriesGiveClearErrors) {
  TempDir tmp;
  EXPECT_NE(error_of([&] { load_pretrained(tmp.file("nope")); }).find("does not exist"), std::string::npos);

  fs::create_directories(tmp.file("pt"));
  bertpt::testing::write_file(tmp.file("pt/pytorch_model.bin"), "PK");
  bertpt::testing::write_file(tmp.file("pt/config.json"), "{}");
  std::string err = error_of([&] { load_pretrained(tmp.file("pt")); });
  EXPECT_NE(err.find("pytorch_model.bin"), std::string::npos) << err;

  BertForMaskedLM model(small_config());
  save_pretrained(tmp.file("cut"), *model);
  std::string bytes = bertpt::testing::slurp(tmp.file("cut/model.safetensors"));
  bertpt::testing::write_file(tmp.file("cut/model.safetensors"), bytes.substr(0, bytes.size() - 100));
  err = error_of([&] { load_pretrained(tmp.file("cut")); });
  EXPECT_NE(err.find("model.safetensors"), std::string::npos) << err;
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;

  fs::remove(tmp.file("cut/config.json"));
  save_pretrained(tmp.file("noconf"), *model);
  fs::remove(tmp.file("noconf/config.json"));
  err = error_of([&] { load_pretrained(tmp.file("noconf")); });
  EXPECT_NE(err.find("config.json"), std::string::npos) << err;
}

TEST(Checkpoint, SavePretrainedReplacesAnExistingCheckpoint) {
  torch::manual_seed(6);
  BertForMaskedLM first(small_config()), second(small_config());
  TempDir tmp;
  save_pretrained(tmp.file("ckpt"), *first);
  save_pretrained(tmp.file("ckpt/"), *second);
  auto loaded = load_pretrained(tmp.file("ckpt"));
  EXPECT_TRUE(same_parameters(*second, *loaded));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(tmp.path())) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"ckpt"});
}

}  // namespace
}  // namespace bertpt::model
