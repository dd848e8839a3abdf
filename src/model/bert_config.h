// BertConfig: the fields of Hugging Face's config.json for BERT (docs/hf-compat.md, "config.json"), so
// a checkpoint directory we write loads with transformers, and one transformers wrote loads here.
// The same struct describes a ModernBERT (model_type "modernbert", transformers' ModernBertConfig):
// the fields both share keep BERT's names here and take ModernBERT's in its JSON (hidden_act is
// "hidden_activation", layer_norm_eps is "norm_eps"); its own fields are in `modern`. RoBERTa and XLM-R
// (model_type "roberta", "xlm-roberta": transformers' RobertaConfig / XLMRobertaConfig) have exactly
// BERT's fields, with other defaults (pad_token_id 1) and positions counted from pad_token_id + 1.
// This header and bert_config.cc do not use LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bertpt::model {

// The fields of transformers' ModernBertConfig that BERT has no counterpart for (same names, same
// defaults as transformers 5).
struct ModernBertFields {
  // Per layer "full_attention" or "sliding_attention"; JSON "layer_types", or derived from
  // "global_attn_every_n_layers" (default 3: layer i is global iff i % 3 == 0) as transformers does.
  std::vector<std::string> layer_types;
  double global_rope_theta = 160000.0;  // rope_parameters.full_attention.rope_theta
  double local_rope_theta = 10000.0;    // rope_parameters.sliding_attention.rope_theta
  // The sliding window's total width: a sliding layer's query i attends to keys j with
  // |i - j| <= local_attention / 2 (transformers' sliding_window).
  int64_t local_attention = 128;
  bool norm_bias = false, attention_bias = false, mlp_bias = false, decoder_bias = true, classifier_bias = false;
  double embedding_dropout = 0.0, attention_dropout = 0.0, mlp_dropout = 0.0, classifier_dropout = 0.0;
  std::string classifier_pooling = "cls";  // or "mean"
  std::string classifier_activation = "gelu";
  double initializer_cutoff_factor = 2.0;  // weights ~ N(0, std) truncated to ±factor·std

  bool is_global_layer(int64_t i) const { return layer_types[size_t(i)] == "full_attention"; }
  bool operator==(const ModernBertFields& o) const;
};

struct BertConfig {
  // "bert", "modernbert", "roberta" or "xlm-roberta" (supported_model_types()).
  std::string model_type = "bert";
  ModernBertFields modern;  // only for model_type "modernbert"

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
  // Only "absolute" is implemented; validate() rejects the relative variants. (RobertaConfig has no such
  // field in transformers 5: a RoBERTa config writes it back only when its file had it.)
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
  bool is_modernbert() const { return model_type == "modernbert"; }
  // RoBERTa or XLM-R: BERT's encoder under "roberta.*", position ids counted from pad_token_id + 1
  // (transformers' create_position_ids_from_input_ids), the MLM head "lm_head".
  bool is_roberta() const { return model_type == "roberta" || model_type == "xlm-roberta"; }
  // The longest input the position table serves: max_position_embeddings, less pad_token_id + 1 for
  // RoBERTa (514 positions hold 512 tokens).
  int64_t max_sequence_length() const;
  // transformers' class names for this architecture's heads: "BertForMaskedLM" /
  // "ModernBertForMaskedLM" / "RobertaForMaskedLM" / "XLMRobertaForMaskedLM", and likewise
  // "<Arch>ForSequenceClassification", "<Arch>ForTokenClassification".
  std::string masked_lm_class() const;
  std::string sequence_classifier_class() const;
  std::string token_classifier_class() const;

  // Throws BadInput naming `source` and the field when a value is out of range or unsupported
  // (e.g. hidden_size not divisible by num_attention_heads).
  void validate(const std::string& source = "config") const;
  // Part of validate(): ModernBERT's own fields.
  void validate_modern(const std::string& source) const;
  // Part of validate(): RoBERTa's pad_token_id and positions.
  void validate_roberta(const std::string& source) const;
  // Part of validate(): sizes beyond any BERT, or fp32 weights larger than this machine's memory.
  void check_bounds(const std::string& source) const;

  // JSON text as transformers writes it: keys sorted, 2-space indent, trailing newline.
  std::string to_json() const;
  // Parses config.json text; `source` names the file in errors. Missing fields take the defaults of
  // the model_type's transformers config class (as transformers does); wrong types and a model_type
  // outside supported_model_types() are errors.
  static BertConfig from_json(const std::string& text, const std::string& source = "config.json");
  static BertConfig load(const std::string& path);
  // Atomic write of to_json().
  void save(const std::string& path) const;

  bool operator==(const BertConfig& o) const;
  bool operator!=(const BertConfig& o) const { return !(*this == o); }
};

// The model_type values bertpt reads: "bert", "modernbert", "roberta", "xlm-roberta".
std::vector<std::string> supported_model_types();

// transformers' RobertaConfig() (model_type "roberta") or XLMRobertaConfig() ("xlm-roberta") defaults:
// BERT's, with pad_token_id 1 and the class's vocab_size (50265, 30522).
BertConfig roberta_defaults(const std::string& model_type = "roberta");

// transformers' ModernBertConfig() defaults (answerdotai/ModernBERT-base's shape, its 50368-token
// vocabulary), layer_types filled in.
BertConfig modernbert_defaults();

// The names of the shipped presets: bert-tiny, bert-mini, bert-small, bert-medium, bert-base,
// bert-large, modernbert-tiny, modernbert-mini, modernbert-small, modernbert-base (answerdotai's
// ModernBERT-base shape), modernbert-large, and roberta-tiny, roberta-base (FacebookAI/roberta-base's
// shape: 514 positions, one token type, LayerNorm eps 1e-5, <s> <pad> </s> = 0 1 2).
std::vector<std::string> preset_names();

// Whether `name` names a preset ("bert-base" or "bert-base.json"), not a path that exists or has a slash.
bool is_preset_name(const std::string& name);

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
