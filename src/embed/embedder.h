// `bertpt embed`: one vector per text from any Hugging Face BERT checkpoint — a bertpt run, a
// fine-tuned classifier, or a sentence-transformers model such as all-MiniLM-L6-v2 — computed as
// sentence-transformers computes it: the encoder's last hidden states, pooled over the tokens
// (mean over the attention mask, or the [CLS] state), optionally L2-normalised.
//
// Defaults come from the model directory's sentence-transformers files when it has them
// (modules.json: a Normalize module; 1_Pooling/config.json: the pooling mode;
// sentence_bert_config.json: max_seq_length), else mean pooling, no normalisation and the model's
// max_position_embeddings. No LibTorch in this header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bertpt::embed {

enum class Pooling { Mean, Cls };

Pooling parse_pooling(const std::string& name);  // "mean" or "cls"; BadInput otherwise
const char* pooling_name(Pooling pooling);

struct EmbedOptions {
  std::string model;               // checkpoint directory
  std::string tokenizer;           // tokenizer directory (empty: the model directory)
  std::optional<Pooling> pooling;  // unset: from the model's sentence-transformers files, else mean
  std::optional<bool> normalize;   // unset: true when modules.json has a Normalize module
  int64_t max_seq_len = 0;         // tokens incl. [CLS]/[SEP]; 0: sentence_bert_config.json, else the model's
  int64_t batch_size = 32;
  std::string device = "cpu";  // normalized device string
};

// What an Embedder does, with the options resolved.
struct EmbedSettings {
  Pooling pooling = Pooling::Mean;
  bool normalize = false;
  int64_t max_seq_len = 0;
  int64_t dim = 0;  // hidden_size
};

// The settings the model directory implies for the options left unset. BadInput on malformed files.
EmbedSettings resolve_settings(const EmbedOptions& options, int64_t hidden_size, int64_t max_position_embeddings);

class Embedder {
 public:
  // Loads the encoder (BertModel, or the "bert." part of any BertFor* checkpoint) and the tokenizer.
  explicit Embedder(const EmbedOptions& options);
  ~Embedder();
  const EmbedSettings& settings() const;
  // Row-major [texts.size() × dim] fp32 vectors, in the order of `texts`. Texts are grouped by length
  // into batches of batch_size; `on_batch(done)`, when set, is called after each batch.
  std::vector<float> embed(const std::vector<std::string>& texts,
                           const std::function<void(size_t)>& on_batch = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bertpt::embed
