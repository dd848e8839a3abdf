#include "train/predict.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "finetune/encode.h"
#include "finetune/label_map.h"
#include "model/bert.h"
#include "model/checkpoint.h"
#include "tokenizer/hf_files.h"
#include "train/classify.h"
#include "train/device.h"

namespace bertpt::train {

namespace fs = std::filesystem;

PredictSummary run_predict(const PredictOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (o.model.empty()) throw BadInput("--model is required", "a directory written by bertpt finetune (best/)");
  if (o.input.empty()) throw BadInput("--input is required");
  if (o.batch_size <= 0) throw BadInput("--batch-size must be > 0");
  if (o.precision != "bf16" && o.precision != "fp32") throw BadInput("--precision must be bf16 or fp32");
  setup_cpu_runtime(o.threads);
  const std::string device = normalize_device(o.device);

  model::checkpoint_weights_path(o.model);  // a missing or pytorch_model.bin-only directory: its clear error first
  const std::string config_path = (fs::path(o.model) / "config.json").string();
  nlohmann::json config_json;
  try {
    config_json = nlohmann::json::parse(read_file(config_path));
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(config_path + ": not valid JSON (" + e.what() + ")");
  }
  if (!config_json.contains("id2label")) {
    throw BadInput(config_path + " has no id2label: " + o.model + " is not a sequence classifier",
                   "fine-tune one first with bertpt finetune, and pass its best/ directory");
  }
  const finetune::LabelMap labels = finetune::LabelMap::from_config(config_json, config_path);
  model::BertConfig config;
  model::BertForSequenceClassification model =
      model::load_sequence_classifier(o.model, int64_t(labels.size()), &config);
  const std::string tok_dir = o.tokenizer.empty() ? o.model : o.tokenizer;
  if (o.tokenizer.empty() && !tokenizer::has_tokenizer_files(o.model)) {
    throw BadInput("model directory " + o.model + " has no tokenizer (tokenizer.json or vocab.txt)", "pass --tokenizer DIR");
  }
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(tok_dir);
  if (int64_t(tok.vocab_size()) != config.vocab_size) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) + " but the tokenizer " +
                   tok_dir + " has " + std::to_string(tok.vocab_size()));
  }
  const int64_t max_len = o.max_seq_len > 0 ? o.max_seq_len : config.max_position_embeddings;
  if (max_len > config.max_position_embeddings) {
    throw BadInput("--max-seq-len " + std::to_string(max_len) + " exceeds the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings));
  }
  model->to(at::Device(device));

  const std::vector<finetune::Example> examples = finetune::read_labeled_data(o.input, o.data, /*require_label=*/false);
  PredictSummary summary;
  const std::vector<finetune::EncodedExample> encoded =
      finetune::encode_examples(tok, examples, !o.data.text_pair_field.empty(), size_t(max_len), &summary.truncated);
  std::vector<size_t> all(examples.size());
  std::iota(all.begin(), all.end(), size_t(0));
  ClassifyOptions co;
  co.batch_size = o.batch_size;
  co.device = device;
  co.bf16 = o.precision == "bf16";
  co.pad_id = std::max<int64_t>(0, tok.special_ids().pad);
  at::Tensor probs = at::softmax(classify(*model, encoded, all, co), 1).contiguous();  // [N, C]
  const int64_t k = probs.size(1);
  const float* p = probs.data_ptr<float>();

  // Metrics when every example carries a label the model knows.
  bool labelled = !examples.empty();
  for (const auto& e : examples) labelled = labelled && !e.label.empty() && labels.id(e.label) >= 0;
  finetune::ConfusionMatrix cm(labels.size());

  std::string out;
  for (size_t i = 0; i < examples.size(); ++i) {
    const float* row = p + int64_t(i) * k;
    int64_t best = 0;
    for (int64_t c = 1; c < k; ++c) best = row[c] > row[best] ? c : best;
    nlohmann::json probabilities = nlohmann::json::object();
    for (int64_t c = 0; c < k; ++c) probabilities[labels.label(c)] = row[c];
    nlohmann::json line = {{"label", labels.label(best)}, {"score", row[best]}, {"probabilities", probabilities}};
    out += line.dump() + "\n";
    if (labelled) cm.add(labels.id(examples[i].label), best);
  }
  if (o.output == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  } else {
    write_file_atomic(o.output, out);
  }
  summary.examples = int64_t(examples.size());
  if (labelled) summary.metrics = cm.metrics(labels.labels());
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace bertpt::train
