// embed's settings: sentence-transformers' files in the model directory decide the defaults, flags
// override them, and bad values are one-line errors.
#include "embed/embedder.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::embed {
namespace {

using bertpt::testing::TempDir;

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  bertpt::testing::write_file(path, text);
}

TEST(EmbedSettings, PlainCheckpointMeansMeanPoolingUnnormalizedFullLength) {
  TempDir tmp;
  EmbedOptions o;
  o.model = tmp.path();
  const EmbedSettings s = resolve_settings(o, 64, 128);
  EXPECT_EQ(s.pooling, Pooling::Mean);
  EXPECT_FALSE(s.normalize);
  EXPECT_EQ(s.max_seq_len, 128);
  EXPECT_EQ(s.dim, 64);
}

TEST(EmbedSettings, SentenceTransformersFilesSetTheDefaults) {
  TempDir tmp;
  put(tmp.file("modules.json"),
      R"([{"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
          {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
          {"idx": 2, "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])");
  put(tmp.file("1_Pooling/config.json"), R"({"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false})");
  put(tmp.file("sentence_bert_config.json"), R"({"max_seq_length": 256, "do_lower_case": false})");
  EmbedOptions o;
  o.model = tmp.path();
  EmbedSettings s = resolve_settings(o, 384, 512);
  EXPECT_EQ(s.pooling, Pooling::Cls);
  EXPECT_TRUE(s.normalize);
  EXPECT_EQ(s.max_seq_len, 256);

  o.pooling = Pooling::Mean;  // flags win
  o.normalize = false;
  o.max_seq_len = 64;
  s = resolve_settings(o, 384, 512);
  EXPECT_EQ(s.pooling, Pooling::Mean);
  EXPECT_FALSE(s.normalize);
  EXPECT_EQ(s.max_seq_len, 64);
}

// What sentence-transformers 6.3 saves (its module paths, "pooling_mode", and max_seq_length as the
// tokenizer's model_max_length with no max_seq_length in sentence_bert_config.json).
TEST(EmbedSettings, SentenceTransformers6Files) {
  TempDir tmp;
  put(tmp.file("modules.json"),
      R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
          {"idx": 1, "name": "1", "path": "1_Pooling",
           "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling"}])");
  put(tmp.file("1_Pooling/config.json"),
      R"({"embedding_dimension": 384, "pooling_mode": "cls", "include_prompt": true})");
  put(tmp.file("sentence_bert_config.json"), R"({"transformer_task": "feature-extraction"})");
  put(tmp.file("tokenizer_config.json"), R"({"model_max_length": 16, "do_lower_case": true})");
  EmbedOptions o;
  o.model = tmp.path();
  EmbedSettings s = resolve_settings(o, 384, 512);
  EXPECT_EQ(s.pooling, Pooling::Cls);
  EXPECT_EQ(s.max_seq_len, 16);
  EXPECT_FALSE(s.normalize);
  put(tmp.file("1_Pooling/config.json"), R"({"pooling_mode": "mean"})");
  put(tmp.file("tokenizer_config.json"), R"({"model_max_length": 4096})");  // capped by the positions
  s = resolve_settings(o, 384, 512);
  EXPECT_EQ(s.pooling, Pooling::Mean);
  EXPECT_EQ(s.max_seq_len, 512);
  put(tmp.file("1_Pooling/config.json"), R"({"pooling_mode": ["mean", "max"]})");
  EXPECT_NE(bertpt::testing::error_of([&] { resolve_settings(o, 64, 512); }).find("is not supported"),
            std::string::npos);
}

TEST(EmbedSettings, BadValuesAreOneLineErrors) {
  TempDir tmp;
  EmbedOptions o;
  o.model = tmp.path();
  o.max_seq_len = 600;
  EXPECT_NE(bertpt::testing::error_of([&] { resolve_settings(o, 64, 512); }).find("max_position_embeddings"),
            std::string::npos);
  EXPECT_NE(bertpt::testing::error_of([] { parse_pooling("max"); }).find("--pooling must be mean or cls"),
            std::string::npos);
  put(tmp.file("modules.json"), "[{\"path\": \"p\", \"type\": \"sentence_transformers.models.Pooling\"}]");
  put(tmp.file("p/config.json"), R"({"pooling_mode_max_tokens": true})");
  o.max_seq_len = 0;
  EXPECT_NE(bertpt::testing::error_of([&] { resolve_settings(o, 64, 512); }).find("pooling mode is not supported"),
            std::string::npos);
  put(tmp.file("modules.json"), "[");
  EXPECT_NE(bertpt::testing::error_of([&] { resolve_settings(o, 64, 512); }).find("modules.json: not valid JSON"),
            std::string::npos);
}

}  // namespace
}  // namespace bertpt::embed
