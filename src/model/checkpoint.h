// Model checkpoints in Hugging Face's layout: a directory with config.json + model.safetensors
// that BertForMaskedLM.from_pretrained / pipeline("fill-mask") load unchanged. This is the torch
// side of src/io/safetensors.h: it walks a module's named parameters (HF names, see bert.h).
#pragma once

#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <memory>

#include "model/bert_config.h"
#include "model/masked_lm.h"

namespace bertpt::model {

// Writes every parameter of `module` (named as in named_parameters(); a tensor registered twice is
// stored once, under its first name) to a safetensors file, converted to `dtype` (Float or BFloat16),
// with __metadata__ {"format": "pt"}. The tied MLM decoder weight is not a parameter of its own, so
// — as transformers does — only bert.embeddings.word_embeddings.weight is stored. Atomic. Throws
// BadInput, writing nothing, when a parameter holds NaN or inf (a diverged run).
void save_safetensors(const torch::nn::Module& module, const std::string& path, c10::ScalarType dtype = c10::kFloat);

// Set to 1, this environment variable lets load_safetensors accept NaN or infinite weights (to
// inspect a diverged run); otherwise such a file is refused.
constexpr const char* kAllowNonFiniteEnv = "BERTPT_ALLOW_NON_FINITE_WEIGHTS";
bool allow_non_finite_weights();

// What load_safetensors matched.
struct LoadReport {
  std::vector<std::string> loaded;      // model parameters filled from the file
  std::vector<std::string> missing;     // model parameters the file lacks (left as they were)
  std::vector<std::string> unexpected;  // file tensors the model has no use for
};

// Fills the parameters of `module` by name (values converted to each parameter's dtype and
// device). Understands the aliases transformers accepts:
//   cls.predictions.decoder.weight  == bert.embeddings.word_embeddings.weight (tied; either is enough)
//   cls.predictions.decoder.bias    == cls.predictions.bias
//   lm_head.decoder.weight / .bias  == roberta.embeddings.word_embeddings.weight / lm_head.bias (RoBERTa)
//   decoder.weight                  == model.embeddings.tok_embeddings.weight (ModernBERT)
//   LayerNorm.gamma / LayerNorm.beta == LayerNorm.weight / LayerNorm.bias (old TF conversions)
//   keys with or without the "bert." / "model." / "roberta." prefix (BertModel <-> BertFor* checkpoints)
// and ignores the old position_ids buffer. Throws BadInput naming the file and tensor on a shape
// mismatch, a non-float tensor, NaN or inf values (unless allow_non_finite_weights()), and — when
// `allow_missing` is false — on missing parameters
// (listing them). Unexpected tensors (e.g. the NSP head of bert-base-uncased) are only reported.
LoadReport load_safetensors(torch::nn::Module& module, const std::string& path, bool allow_missing = false);

// The two model files of a checkpoint directory, written into an existing directory `dir`:
// config.json (`config` with torch_dtype from `dtype`; its architectures name the head) and
// model.safetensors. For a trainer that assembles a checkpoint in its own temporary directory.
void write_model_files(const std::string& dir, const torch::nn::Module& model, BertConfig config,
                       c10::ScalarType dtype = c10::kFloat);
// The same for a masked language model (architectures [config.masked_lm_class()]: "BertForMaskedLM", ...).
void write_model_files(const std::string& dir, const MaskedLanguageModel& model, c10::ScalarType dtype = c10::kFloat);

// Copies the Hugging Face tokenizer files (tokenizer.json, vocab.txt, tokenizer_config.json,
// special_tokens_map.json, added_tokens.json — those present) of `tokenizer_dir` into `dir`, each
// atomically: a model directory with its tokenizer is what pipeline(..., model=dir) loads.
void copy_tokenizer_files(const std::string& tokenizer_dir, const std::string& dir);

// A complete checkpoint directory, atomically: written to DIR.tmp.<pid>, fsynced, renamed to DIR
// (an existing DIR is replaced only after the new one is complete). With `tokenizer_dir`, its files
// are copied in too; with `model_card`, it is written as README.md.
void save_pretrained(const std::string& dir, const torch::nn::Module& model, const BertConfig& config,
                     c10::ScalarType dtype = c10::kFloat, const std::string& tokenizer_dir = "",
                     const std::string& model_card = "");
void save_pretrained(const std::string& dir, const MaskedLanguageModel& model, c10::ScalarType dtype = c10::kFloat);

// The weights file of a checkpoint directory (DIR/model.safetensors), with clear errors for a
// missing directory, a pytorch_model.bin-only checkpoint (not supported: re-save with
// safe_serialization=True) and sharded checkpoints.
std::string checkpoint_weights_path(const std::string& dir);

// Loads DIR/config.json + DIR/model.safetensors into a new masked LM of the config's architecture
// (BertForMaskedLM, ModernBertForMaskedLM, RobertaForMaskedLM or XLMRobertaForMaskedLM) on `device` (in eval
// mode, fp32 parameters). Clear errors for a missing directory, a pytorch_model.bin-only
// checkpoint (not supported: re-save with safe_serialization=True), sharded checkpoints, and
// missing tensors. `report`, when given, receives the load report.
std::shared_ptr<MaskedLanguageModel> load_pretrained(const std::string& dir,
                                                     c10::Device device = c10::Device(c10::kCPU),
                                                     LoadReport* report = nullptr);

// A sequence classifier of the config's architecture (BertForSequenceClassification or
// ModernBertForSequenceClassification) with `num_labels` classes from DIR (on CPU, train mode):
//   - a classifier checkpoint (config.json has "id2label" of num_labels entries): every tensor loaded;
//   - any other checkpoint (a pre-trained MaskedLM): the encoder is loaded and the new head — what
//     the file lacks of head_prefixes() (bert.pooler.dense, classifier; ModernBERT: head.*, classifier)
//     — initialised as transformers does, from LibTorch's generator (seed it first). Any other missing
//     tensor is an error.
// `config_out` receives the checkpoint's config.
std::shared_ptr<SequenceClassifier> load_sequence_classifier(const std::string& dir, int64_t num_labels,
                                                             BertConfig* config_out = nullptr,
                                                             LoadReport* report = nullptr);
// The same for a token classifier (BertForTokenClassification: head classifier.*;
// ModernBertForTokenClassification: head.*, classifier.*).
std::shared_ptr<TokenClassifier> load_token_classifier(const std::string& dir, int64_t num_labels,
                                                       BertConfig* config_out = nullptr, LoadReport* report = nullptr);

}  // namespace bertpt::model
