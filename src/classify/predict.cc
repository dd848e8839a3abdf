#include "classify/predict.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "classify/classify.h"
#include "classify/encode.h"
#include "classify/label_map.h"
#include "classify/problem_type.h"
#include "classify/regression_metrics.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "engine/device.h"
#include "engine/precision.h"
#include "model/checkpoint.h"
#include "model/masked_lm.h"
#include "tokenizer/hf_files.h"

namespace bertpt::classify {

namespace fs = std::filesystem;

namespace {

struct ClassifierHead {
  LabelMap labels;
  ProblemType type = ProblemType::SingleLabel;
};

// The label map and problem type of a fine-tuned model directory (config.json's id2label, problem_type).
ClassifierHead classifier_head(const std::string& model_dir) {
  model::checkpoint_weights_path(model_dir);  // a missing or pytorch_model.bin-only directory: its clear error first
  const std::string config_path = (fs::path(model_dir) / "config.json").string();
  const nlohmann::json config_json = read_json_file(config_path);
  if (!config_json.is_object() || !config_json.contains("id2label")) {
    throw BadInput(config_path + " has no id2label: " + model_dir + " is not a sequence classifier",
                   "fine-tune one first with bertpt finetune, and pass its best/ directory");
  }
  return {LabelMap::from_config(config_json, config_path), problem_type_of_config(config_json)};
}

// --tokenizer, else the model directory's; checked against the model's vocabulary.
tokenizer::Tokenizer classifier_tokenizer(const PredictOptions& o, const model::BertConfig& config) {
  const std::string tok_dir = o.tokenizer.empty() ? o.model : o.tokenizer;
  if (o.tokenizer.empty() && !tokenizer::has_tokenizer_files(o.model)) {
    throw BadInput("model directory " + o.model + " has no tokenizer (tokenizer.json or vocab.txt)",
                   "pass --tokenizer DIR");
  }
  tokenizer::Tokenizer tok = tokenizer::load_tokenizer(tok_dir);
  if (int64_t(tok.vocab_size()) != config.vocab_size) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) +
                   " but the tokenizer " + tok_dir + " has " + std::to_string(tok.vocab_size()));
  }
  return tok;
}

// The prediction lines to o.output (written atomically) or stdout.
void write_lines(const PredictOptions& o, const std::string& out) {
  if (o.output == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  } else {
    write_file_atomic(o.output, out);
  }
}

// One JSON line per example (label, score, probabilities) to o.output; the confusion matrix when
// every example carries a label the model knows.
void write_predictions(const PredictOptions& o, const at::Tensor& probs, const std::vector<Example>& examples,
                       const LabelMap& labels, PredictSummary& summary) {
  const int64_t k = probs.size(1);
  const float* p = probs.data_ptr<float>();
  bool labelled = !examples.empty();
  for (const auto& e : examples) labelled = labelled && !e.label.empty() && labels.id(e.label) >= 0;
  ConfusionMatrix cm(labels.size());
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
  write_lines(o, out);
  if (labelled) summary.metrics = cm.metrics(labels.labels());
}

// A regression model: one line per example, {"label": "LABEL_0", "score": VALUE} (the pipeline's
// output with function_to_apply "none"); Pearson/Spearman/MSE when every example has a numeric label.
void write_regression(const PredictOptions& o, const at::Tensor& values, const std::vector<Example>& examples,
                      const LabelMap& labels, PredictSummary& summary) {
  const at::Tensor v = values.to(at::kDouble).contiguous();
  std::vector<double> predicted(v.data_ptr<double>(), v.data_ptr<double>() + v.numel()), gold;
  std::string out;
  for (size_t i = 0; i < examples.size(); ++i) {
    out += nlohmann::json({{"label", labels.label(0)}, {"score", predicted[i]}}).dump() + "\n";
  }
  write_lines(o, out);
  try {
    gold = regression_targets(examples, o.input);
  } catch (const BadInput&) {
    return;  // unlabelled (or not all numbers): predictions only
  }
  if (!examples.empty()) summary.regression = regression_metrics(gold, predicted);
}

}  // namespace

PredictSummary run_predict(const PredictOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (o.model.empty()) throw BadInput("--model is required", "a directory written by bertpt finetune (best/)");
  if (o.input.empty()) throw BadInput("--input is required");
  if (o.batch_size <= 0) throw BadInput("--batch-size must be > 0");
  const bool bf16 = engine::is_bf16(o.precision);
  const std::string device = engine::setup_runtime(o.threads, o.device);
  const ClassifierHead head = classifier_head(o.model);
  const LabelMap& labels = head.labels;
  model::BertConfig config;
  auto model = model::load_sequence_classifier(o.model, int64_t(labels.size()), &config);
  const tokenizer::Tokenizer tok = classifier_tokenizer(o, config);
  const int64_t max_len = o.max_seq_len > 0 ? o.max_seq_len : config.max_position_embeddings;
  if (max_len > config.max_position_embeddings) {
    throw BadInput("--max-seq-len " + std::to_string(max_len) + " exceeds the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings));
  }
  model->to(at::Device(device));

  const std::vector<Example> examples = read_labeled_data(o.input, o.data, /*require_label=*/false);
  PredictSummary summary;
  const std::vector<EncodedExample> encoded = encode_examples(tok, examples, !o.data.text_pair_field.empty(),
                                                              size_t(max_len), &summary.truncated);
  std::vector<size_t> all(examples.size());
  std::iota(all.begin(), all.end(), size_t(0));
  ClassifyOptions co;
  co.batch_size = o.batch_size;
  co.device = device;
  co.bf16 = bf16;
  co.pad_id = std::max<int64_t>(0, tok.special_ids().pad);
  const at::Tensor logits = classify(*model, encoded, all, co);  // [N, C]
  if (head.type == ProblemType::Regression) {
    write_regression(o, logits.select(1, 0), examples, labels, summary);
  } else {
    write_predictions(o, at::softmax(logits, 1).contiguous(), examples, labels, summary);
  }
  summary.examples = int64_t(examples.size());
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace bertpt::classify
