// A tiny prepared dataset with learnable structure, and tiny-model train options, for the training
// tests: everything runs on CPU in fp32 in seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "data/data_test_util.h"
#include "data/prepare.h"
#include "mlm/pretrain_options.h"

namespace bertpt::testing {

// Sentences from a few fixed templates: a masked word is mostly predictable from its context, so a
// model that learns shows it (accuracy far above the most-frequent-token baseline).
inline std::vector<std::string> structured_documents(int n) {
  const char* sentences[] = {"the cat sat on the mat.",
                             "the dog ran far away from home.",
                             "a cat and a dog sat on a mat.",
                             "the dog ran home quickly.",
                             "run far away, cat.",
                             "the mat sat on the cat and the dog."};
  std::vector<std::string> docs;
  uint32_t x = 987654321u;
  for (int i = 0; i < n; ++i) {
    std::string d;
    for (int k = 0; k < 3; ++k) {
      x = x * 1103515245u + 12345u;
      d += (k ? " " : "") + std::string(sentences[(x >> 16) % 6]);
    }
    docs.push_back(d);
  }
  return docs;
}

// Prepares DIR/data (seq_len 32, ~5% valid) from `docs` with the test tokenizer; returns its path.
inline std::string make_dataset(const TempDir& dir, const std::vector<std::string>& docs, uint32_t seq_len = 32,
                                const std::string& name = "data") {
  std::string text;
  for (const auto& d : docs) text += d + "\n";
  const std::string corpus = dir.file(name + "-corpus.txt");
  write_file(corpus, text);
  data::PrepareOptions o;
  o.corpus.inputs = {corpus};
  o.tokenizer = write_test_tokenizer(dir);
  o.out = dir.file(name);
  o.seq_len = seq_len;
  o.threads = 1;
  o.valid_fraction = 0.1;
  data::prepare_dataset(o);
  return o.out;
}

// A tiny model config file (2 layers, `hidden` wide, 2 heads) with the given dropout. It is a file,
// not a preset, so its vocab_size must match the dataset's.
inline std::string write_tiny_config(const TempDir& dir, int64_t vocab_size, double dropout,
                                     const std::string& name = "tiny.json", int hidden = 32) {
  std::string path = dir.file(name);
  write_file(path, "{\"model_type\": \"bert\", \"vocab_size\": " + std::to_string(vocab_size) +
                       ", \"hidden_size\": " + std::to_string(hidden) +
                       ", \"num_hidden_layers\": 2, \"num_attention_heads\": 2, "
                       "\"intermediate_size\": " +
                       std::to_string(2 * hidden) +
                       ", \"max_position_embeddings\": 64, \"hidden_dropout_prob\": " + std::to_string(dropout) +
                       ", \"attention_probs_dropout_prob\": " + std::to_string(dropout) + "}");
  return path;
}

// Options for a short CPU fp32 run.
inline mlm::PretrainOptions tiny_options(const std::string& data, const std::string& model, const std::string& out) {
  mlm::PretrainOptions o;
  o.data = data;
  o.model = model;
  o.output_dir = out;
  o.precision = "fp32";
  o.device = "cpu";
  o.threads = 1;
  o.per_device_batch_size = 8;
  o.max_steps = 6;
  o.learning_rate = 1e-3;
  o.logging_steps = 1;
  o.save_steps = 0;
  o.peak_tflops = 1;  // skip the GEMM probe
  return o;
}

}  // namespace bertpt::testing
