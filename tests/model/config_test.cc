// BertConfig: config.json round trip, validation, presets (no LibTorch in this file).
#include "model/bert_config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::model {
namespace {

using bertpt::testing::TempDir;

using testing::error_of;

TEST(BertConfig, JsonRoundTripKeepsUnknownFields) {
  // A config.json as transformers writes it (bert-base-uncased style, plus fields we do not model).
  const std::string text = R"({
    "architectures": ["BertForMaskedLM"],
    "attention_probs_dropout_prob": 0.1,
    "classifier_dropout": null,
    "gradient_checkpointing": false,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": 768,
    "initializer_range": 0.02,
    "intermediate_size": 3072,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "model_type": "bert",
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "torch_dtype": "float32",
    "transformers_version": "4.38.2",
    "type_vocab_size": 2,
    "use_cache": true,
    "vocab_size": 30522
  })";
  BertConfig c = BertConfig::from_json(text);
  EXPECT_EQ(c.vocab_size, 30522);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.head_dim(), 64);
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.extra.at("transformers_version"), "\"4.38.2\"");
  EXPECT_EQ(c.extra.at("classifier_dropout"), "null");
  EXPECT_EQ(c.extra.at("use_cache"), "true");
  BertConfig back = BertConfig::from_json(c.to_json());
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.to_json(), c.to_json());
  // Written like transformers: sorted keys, 2-space indent, model_type present.
  const std::string out = c.to_json();
  EXPECT_LT(out.find("\"architectures\""), out.find("\"vocab_size\""));
  EXPECT_NE(out.find("\n  \"model_type\": \"bert\""), std::string::npos);
  EXPECT_NE(out.find("\"layer_norm_eps\": 1e-12"), std::string::npos);
}

TEST(BertConfig, MissingFieldsTakeDefaults) {
  BertConfig c = BertConfig::from_json(R"({"vocab_size": 100, "hidden_size": 64, "num_attention_heads": 4})");
  EXPECT_EQ(c.num_hidden_layers, 12);
  EXPECT_EQ(c.hidden_act, "gelu");
  EXPECT_EQ(c.max_position_embeddings, 512);
  BertConfig null_pad = BertConfig::from_json(R"({"pad_token_id": null})");
  EXPECT_EQ(null_pad.pad_token_id, -1);
  EXPECT_NE(null_pad.to_json().find("\"pad_token_id\": null"), std::string::npos);
}

TEST(BertConfig, ValidationNamesTheField) {
  EXPECT_NE(error_of([] {
              BertConfig::from_json(R"({"hidden_size": 100, "num_attention_heads": 12})", "x.json");
            }).find("x.json: field 'hidden_size' (100) is not a multiple of num_attention_heads (12)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              BertConfig::from_json(R"({"vocab_size": "big"})", "c.json");
            }).find("c.json: field \"vocab_size\" is a string, expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json(R"({"model_type": "gpt2"})"); }).find("model_type"), std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json(R"({"hidden_act": "tanh"})"); }).find("hidden_act"), std::string::npos);
  EXPECT_NE(error_of([] {
              BertConfig::from_json(R"({"position_embedding_type": "relative_key"})");
            }).find("position_embedding_type"),
            std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json(R"({"hidden_dropout_prob": 1.5})"); }).find("hidden_dropout_prob"),
            std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json(R"({"num_hidden_layers": 0})"); }).find("num_hidden_layers"),
            std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json(R"({"vocab_size": 10, "pad_token_id": 10})"); }).find("pad_token_id"),
            std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json("{not json"); }).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of([] { BertConfig::from_json("[1]"); }).find("not a JSON object"), std::string::npos);
}

TEST(BertConfig, PresetFilesMatchTheBuiltInPresets) {
  const std::string dir = bertpt::testing::source_dir() + "/configs";
  for (const auto& name : preset_names()) {
    SCOPED_TRACE(name);
    BertConfig file = BertConfig::load(dir + "/" + name + ".json");
    EXPECT_EQ(file, builtin_preset(name));
    EXPECT_EQ(file.vocab_size, 32000);
  }
  BertConfig tiny = builtin_preset("bert-tiny");
  EXPECT_EQ(tiny.num_hidden_layers, 2);
  EXPECT_EQ(tiny.hidden_size, 128);
  EXPECT_EQ(tiny.num_attention_heads, 2);
  EXPECT_EQ(tiny.intermediate_size, 512);
  BertConfig large = builtin_preset("bert-large");
  EXPECT_EQ(large.num_hidden_layers, 24);
  EXPECT_EQ(large.hidden_size, 1024);
  EXPECT_EQ(large.num_attention_heads, 16);
  EXPECT_EQ(large.intermediate_size, 4096);
}

TEST(BertConfig, ResolveByNameFileOrDirectory) {
  EXPECT_EQ(resolve_model_config("bert-mini"), builtin_preset("bert-mini"));
  EXPECT_EQ(resolve_model_config("bert-mini.json"), builtin_preset("bert-mini"));

  TempDir tmp;
  BertConfig c = builtin_preset("bert-tiny");
  c.vocab_size = 1234;
  c.save(tmp.file("config.json"));
  EXPECT_EQ(resolve_model_config(tmp.path()), c);               // checkpoint directory
  EXPECT_EQ(resolve_model_config(tmp.file("config.json")), c);  // file

  // $BERTPT_CONFIG_DIR comes first on the search path.
  std::filesystem::create_directories(tmp.file("presets"));
  BertConfig custom = builtin_preset("bert-small");
  custom.hidden_dropout_prob = 0.0;
  custom.save(tmp.file("presets/bert-small.json"));
  ::setenv("BERTPT_CONFIG_DIR", tmp.file("presets").c_str(), 1);
  EXPECT_EQ(resolve_model_config("bert-small"), custom);
  ::unsetenv("BERTPT_CONFIG_DIR");

  std::string err = error_of([] { resolve_model_config("bert-huge"); });
  EXPECT_NE(err.find("bert-huge"), std::string::npos) << err;
  err = error_of([&] { resolve_model_config(tmp.file("nope/config.json")); });
  EXPECT_NE(err.find("neither an existing path nor a preset"), std::string::npos) << err;
  std::filesystem::create_directories(tmp.file("empty"));
  err = error_of([&] { resolve_model_config(tmp.file("empty")); });
  EXPECT_NE(err.find("without config.json"), std::string::npos) << err;
}

// config.json exactly as transformers 5.23 writes a RobertaForMaskedLM's (save_pretrained).
const char* const kTransformersRobertaConfig = R"({
  "add_cross_attention": false,
  "architectures": [
    "RobertaForMaskedLM"
  ],
  "attention_probs_dropout_prob": 0.1,
  "bos_token_id": 0,
  "classifier_dropout": null,
  "dtype": "float32",
  "eos_token_id": 2,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 32,
  "initializer_range": 0.02,
  "intermediate_size": 64,
  "is_decoder": false,
  "layer_norm_eps": 1e-05,
  "max_position_embeddings": 66,
  "model_type": "roberta",
  "num_attention_heads": 2,
  "num_hidden_layers": 2,
  "pad_token_id": 1,
  "tie_word_embeddings": true,
  "transformers_version": "5.23.0",
  "type_vocab_size": 1,
  "use_cache": true,
  "vocab_size": 100
}
)";

TEST(RobertaConfig, TransformersFileRoundTrips) {
  const BertConfig c = BertConfig::from_json(kTransformersRobertaConfig);
  EXPECT_TRUE(c.is_roberta());
  EXPECT_FALSE(c.is_modernbert());
  EXPECT_EQ(c.model_type, "roberta");
  EXPECT_EQ(c.pad_token_id, 1);
  EXPECT_EQ(c.type_vocab_size, 1);
  EXPECT_DOUBLE_EQ(c.layer_norm_eps, 1e-5);
  EXPECT_EQ(c.max_position_embeddings, 66);
  EXPECT_EQ(c.max_sequence_length(), 64);  // positions 2..65: pad_token_id + 1 onwards
  EXPECT_EQ(c.extra.at("bos_token_id"), "0");
  EXPECT_EQ(c.extra.at("eos_token_id"), "2");
  EXPECT_EQ(c.masked_lm_class(), "RobertaForMaskedLM");
  EXPECT_EQ(c.sequence_classifier_class(), "RobertaForSequenceClassification");
  EXPECT_EQ(c.token_classifier_class(), "RobertaForTokenClassification");
  const BertConfig back = BertConfig::from_json(c.to_json());
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.to_json(), c.to_json());
  // Every key of transformers' file is written back with its value, and nothing BERT-only is added
  // (torch_dtype aside, which bertpt always writes).
  const std::string out = c.to_json();
  EXPECT_NE(out.find("\n  \"model_type\": \"roberta\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"tie_word_embeddings\": true"), std::string::npos) << out;
  EXPECT_NE(out.find("\"layer_norm_eps\": 1e-05"), std::string::npos) << out;
  EXPECT_EQ(out.find("position_embedding_type"), std::string::npos) << out;
  for (const char* key : {"\"add_cross_attention\": false", "\"classifier_dropout\": null", "\"is_decoder\": false",
                          "\"use_cache\": true", "\"dtype\": \"float32\"", "\"pad_token_id\": 1",
                          "\"type_vocab_size\": 1", "\"transformers_version\": \"5.23.0\""}) {
    EXPECT_NE(out.find(key), std::string::npos) << key;
  }

  // XLM-R: the same fields under its own model_type and class names.
  std::string xlmr = kTransformersRobertaConfig;
  xlmr.replace(xlmr.find("\"roberta\""), 9, "\"xlm-roberta\"");
  xlmr.replace(xlmr.find("RobertaForMaskedLM"), 18, "XLMRobertaForMaskedLM");
  const BertConfig x = BertConfig::from_json(xlmr);
  EXPECT_TRUE(x.is_roberta());
  EXPECT_EQ(x.model_type, "xlm-roberta");
  EXPECT_EQ(x.masked_lm_class(), "XLMRobertaForMaskedLM");
  EXPECT_EQ(x.sequence_classifier_class(), "XLMRobertaForSequenceClassification");
  EXPECT_EQ(x.architectures, std::vector<std::string>{"XLMRobertaForMaskedLM"});
  EXPECT_EQ(BertConfig::from_json(x.to_json()), x);
  EXPECT_NE(x.to_json().find("\"model_type\": \"xlm-roberta\""), std::string::npos);
}

TEST(RobertaConfig, MissingFieldsTakeTheTransformersClassDefaults) {
  const BertConfig r = BertConfig::from_json(R"({"model_type": "roberta"})");
  EXPECT_EQ(r.pad_token_id, 1);     // RobertaConfig's, not BERT's 0
  EXPECT_EQ(r.vocab_size, 50265);   // RobertaConfig's
  EXPECT_EQ(r.type_vocab_size, 2);  // the class default; roberta-base's file says 1
  EXPECT_EQ(r.max_position_embeddings, 512);
  EXPECT_DOUBLE_EQ(r.layer_norm_eps, 1e-12);
  EXPECT_EQ(r.architectures, std::vector<std::string>{"RobertaForMaskedLM"});
  EXPECT_EQ(r.max_sequence_length(), 510);
  const BertConfig x = BertConfig::from_json(R"({"model_type": "xlm-roberta"})");
  EXPECT_EQ(x.vocab_size, 30522);  // XLMRobertaConfig's
  EXPECT_EQ(x.pad_token_id, 1);
  EXPECT_EQ(roberta_defaults("xlm-roberta"), x);
  // BERT's own positions are not shifted.
  EXPECT_EQ(BertConfig().max_sequence_length(), 512);
}

TEST(RobertaConfig, OldFilesAndBadValues) {
  // transformers 4 wrote position_embedding_type: kept as it was, and only "absolute" is accepted.
  const BertConfig old = BertConfig::from_json(R"({"model_type": "roberta", "position_embedding_type": "absolute",
      "vocab_size": 50, "max_position_embeddings": 514})");
  EXPECT_NE(old.to_json().find("\"position_embedding_type\": \"absolute\""), std::string::npos);
  EXPECT_EQ(BertConfig::from_json(old.to_json()), old);
  EXPECT_NE(error_of([] {
              BertConfig::from_json(R"({"model_type": "roberta", "position_embedding_type": "relative_key"})");
            }).find("position_embedding_type"),
            std::string::npos);
  // Positions are counted from pad_token_id: it must be set, and leave room in the table.
  std::string err = error_of([] { BertConfig::from_json(R"({"model_type": "roberta", "pad_token_id": null})"); });
  EXPECT_NE(err.find("pad_token_id"), std::string::npos) << err;
  err = error_of(
      [] { BertConfig::from_json(R"({"model_type": "roberta", "pad_token_id": 1, "max_position_embeddings": 2})"); });
  EXPECT_NE(err.find("max_position_embeddings"), std::string::npos) << err;
}

TEST(RobertaConfig, UnknownModelTypeListsTheSupportedOnes) {
  std::string err, hint;
  try {
    BertConfig::from_json(R"({"model_type": "gpt2"})", "gpt2/config.json");
  } catch (const BadInput& e) {
    err = e.what();
    hint = e.hint();
  }
  EXPECT_NE(err.find("gpt2/config.json: field 'model_type' is 'gpt2'"), std::string::npos) << err;
  EXPECT_NE(err.find("RoBERTa and XLM-R"), std::string::npos) << err;
  for (const auto& t : supported_model_types()) EXPECT_NE(hint.find("\"" + t + "\""), std::string::npos) << t;
  EXPECT_EQ(supported_model_types(), (std::vector<std::string>{"bert", "modernbert", "roberta", "xlm-roberta"}));
}

TEST(RobertaConfig, Presets) {
  const BertConfig base = builtin_preset("roberta-base");
  EXPECT_EQ(base.model_type, "roberta");
  EXPECT_EQ(base.num_hidden_layers, 12);
  EXPECT_EQ(base.hidden_size, 768);
  EXPECT_EQ(base.intermediate_size, 3072);
  EXPECT_EQ(base.max_position_embeddings, 514);
  EXPECT_EQ(base.max_sequence_length(), 512);
  EXPECT_EQ(base.type_vocab_size, 1);
  EXPECT_EQ(base.pad_token_id, 1);
  EXPECT_DOUBLE_EQ(base.layer_norm_eps, 1e-5);
  EXPECT_EQ(base.architectures, std::vector<std::string>{"RobertaForMaskedLM"});
  EXPECT_EQ(resolve_model_config("roberta-tiny"), builtin_preset("roberta-tiny"));
  EXPECT_EQ(builtin_preset("roberta-tiny").num_hidden_layers, 2);
}

}  // namespace
}  // namespace bertpt::model
