// BertConfig: the fields of Hugging Face's config.json for BERT (docs/hf-compat.md, "config.json"), so
// a checkpoint directory we write loads with transformers, and one transformers wrote loads here.
// This header and bert_config.cc do not use LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bertpt::model {

struct BertConfig {
  int64_t vocab_size = 32000;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  // "gelu" (exact erf), "gelu_new" / "gelu_pytorch_tanh" (tanh approximation), "relu", "silu".
  std::string hidden_act = "gelu";
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 2;
  double initializer_range = 0.02;
  double layer_norm_eps = 1e-12;
  int64_t pad_token_id = 0;
  // Only "absolute" is implemented; validate() rejects the relative variants.
  std::string position_embedding_type = "absolute";
  std::vector<std::string> architectures = {"BertForMaskedLM"};
  // false: the MLM decoder has a weight of its own ("cls.predictions.decoder.weight") instead of
  // sharing the word embeddings. Written to config.json only when false, as transformers does for a
  // value equal to its default.
  bool tie_word_embeddings = true;
  // "float32" or "bfloat16": the dtype of the saved weights.
  std::string torch_dtype = "float32";

  // Every other key of the file (e.g. transformers_version, id2label, use_cache), kept as
  // serialized JSON values and written back unchanged, so a round trip loses nothing.
  std::map<std::string, std::string> extra;

  int64_t head_dim() const { return hidden_size / num_attention_heads; }

  // Throws BadInput naming `source` and the field when a value is out of range or unsupported
  // (e.g. hidden_size not divisible by num_attention_heads).
  void validate(const std::string& source = "config") const;
  // Part of validate(): sizes beyond any BERT, or fp32 weights larger than this machine's memory.
  void check_bounds(const std::string& source) const;

  // JSON text as transformers writes it: keys sorted, 2-space indent, trailing newline.
  std::string to_json() const;
  // Parses config.json text; `source` names the file in errors. Missing fields take BertConfig's
  // defaults (as transformers does); wrong types and model_type other than "bert" are errors.
  static BertConfig from_json(const std::string& text, const std::string& source = "config.json");
  static BertConfig load(const std::string& path);
  // Atomic write of to_json().
  void save(const std::string& path) const;

  bool operator==(const BertConfig& o) const;
  bool operator!=(const BertConfig& o) const { return !(*this == o); }
};

// The names of the shipped presets: bert-tiny, bert-mini, bert-small, bert-medium, bert-base,
// bert-large.
std::vector<std::string> preset_names();

// The directories searched for preset files, in order: $BERTPT_CONFIG_DIR, the source tree's
// configs/ (compile-time BERTPT_CONFIG_DIR), <exe dir>/../share/bertpt/configs, <exe dir>/configs.
std::vector<std::string> config_search_path();

// `--model` resolution. Accepts
//   - a checkpoint directory (reads DIR/config.json),
//   - a path to a config.json file,
//   - a preset name ("bert-base", or "bert-base.json"), looked up in config_search_path(); if no
//     file is found the built-in copy of the preset is used, so an installed binary still works.
// Throws BadInput listing the presets when nothing matches. The result is validated.
BertConfig resolve_model_config(const std::string& name_or_path);

// The built-in definition of a preset (same values as configs/<name>.json); throws BadInput for an
// unknown name.
BertConfig builtin_preset(const std::string& name);

}  // namespace bertpt::model
