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
#include "classify/tagged_words.h"
#include "classify/tagger.h"
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
  bool per_token = false;  // architectures *ForTokenClassification
};

bool names_token_classifier(const nlohmann::json& config) {
  const std::string suffix = "ForTokenClassification";
  if (!config.contains("architectures") || !config["architectures"].is_array()) return false;
  for (const nlohmann::json& a : config["architectures"]) {
    if (a.is_string() && a.get<std::string>().size() >= suffix.size() &&
        a.get<std::string>().compare(a.get<std::string>().size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

// The label map and problem type of a fine-tuned model directory (config.json's id2label, problem_type).
ClassifierHead classifier_head(const std::string& model_dir) {
  model::checkpoint_weights_path(model_dir);  // a missing or pytorch_model.bin-only directory: its clear error first
  const std::string config_path = (fs::path(model_dir) / "config.json").string();
  const nlohmann::json config_json = read_json_file(config_path);
  if (!config_json.is_object() || !config_json.contains("id2label")) {
    throw BadInput(config_path + " has no id2label: " + model_dir + " is not a classifier",
                   "fine-tune one first with bertpt finetune, and pass its best/ directory");
  }
  return {LabelMap::from_config(config_json, config_path), problem_type_of_config(config_json),
          names_token_classifier(config_json)};
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

// A sentence's words, tags and scores, and the entities of its tags (start/end: word positions).
nlohmann::json tagged_line(const TaggedSentence& s, const SentenceTags& t, const LabelMap& labels) {
  nlohmann::json tags = nlohmann::json::array(), scores = nlohmann::json::array();
  std::vector<std::string> kept;  // the tags of the words before the first cut one
  for (size_t w = 0; w < s.words.size(); ++w) {
    tags.push_back(t.tag[w] < 0 ? nlohmann::json() : nlohmann::json(labels.label(t.tag[w])));
    scores.push_back(t.tag[w] < 0 ? nlohmann::json() : nlohmann::json(t.score[w]));
    if (t.tag[w] >= 0 && kept.size() == w) kept.push_back(labels.label(t.tag[w]));
  }
  nlohmann::json entities = nlohmann::json::array();
  for (const Entity& e : tag_entities(kept)) {
    std::string word;
    double score = 0;
    for (int64_t w = e.first; w <= e.last; ++w) {
      word += (w > e.first ? " " : "") + s.words[size_t(w)];
      score += t.score[size_t(w)];
    }
    entities.push_back({{"entity_group", e.type},
                        {"word", word},
                        {"start", e.first},
                        {"end", e.last + 1},
                        {"score", score / double(e.last - e.first + 1)}});
  }
  return {{"words", s.words}, {"labels", tags}, {"scores", scores}, {"entities", entities}};
}

// A token classifier over the CoNLL sentences of o.input: a line per sentence; the entity metrics
// when every word has a tag (the words cut off by truncation are not scored, as in fine-tuning).
void predict_tags(const PredictOptions& o, model::Classifier& model, const LabelMap& labels,
                  const tokenizer::Tokenizer& tok, int64_t max_len, const ClassifyOptions& co,
                  PredictSummary& summary) {
  if (o.data.format != "auto" && o.data.format != "conll") {
    throw BadInput("--format " + o.data.format + ": " + o.model + " is a token classifier, which reads CoNLL input",
                   "pass --format conll (a word per line, blank lines between sentences)");
  }
  const std::vector<TaggedSentence> sentences = read_conll(o.input, /*require_tags=*/false);
  const EncodedSentences encoded = encode_sentences(tok, sentences, size_t(max_len));
  std::vector<size_t> all(sentences.size());
  std::iota(all.begin(), all.end(), size_t(0));
  const std::vector<SentenceTags> tags = tag_sentences(model, encoded, all, co);
  std::string out;
  bool labelled = true;
  std::vector<std::vector<std::string>> gold(sentences.size()), guess(sentences.size());
  for (size_t i = 0; i < sentences.size(); ++i) {
    out += tagged_line(sentences[i], tags[i], labels).dump() + "\n";
    labelled = labelled && sentences[i].tags.size() == sentences[i].words.size();
    for (size_t w = 0; labelled && w < sentences[i].words.size(); ++w) {
      if (tags[i].tag[w] < 0) continue;
      gold[i].push_back(sentences[i].tags[w]);
      guess[i].push_back(labels.label(tags[i].tag[w]));
    }
  }
  write_lines(o, out);
  if (labelled) summary.entities = entity_metrics(gold, guess);
  summary.examples = int64_t(sentences.size());
  summary.truncated = encoded.truncated;
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
  const int64_t k = int64_t(labels.size());
  auto model = head.per_token ? model::load_token_classifier(o.model, k, &config)
                              : model::load_sequence_classifier(o.model, k, &config);
  const tokenizer::Tokenizer tok = classifier_tokenizer(o, config);
  // RoBERTa's positions start at pad_token_id + 1: 514 of them hold 512 tokens.
  const int64_t max_len = o.max_seq_len > 0 ? o.max_seq_len : config.max_sequence_length();
  if (max_len > config.max_sequence_length()) {
    throw BadInput("--max-seq-len " + std::to_string(max_len) + " exceeds the " +
                   std::to_string(config.max_sequence_length()) + " tokens the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings) + " hold");
  }
  model->to(at::Device(device));
  ClassifyOptions co;
  co.batch_size = o.batch_size;
  co.device = device;
  co.bf16 = bf16;
  co.pad_id = std::max<int64_t>(0, tok.special_ids().pad);
  PredictSummary summary;
  if (head.per_token) {
    predict_tags(o, *model, labels, tok, max_len, co, summary);
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return summary;
  }

  const std::vector<Example> examples = read_labeled_data(o.input, o.data, /*require_label=*/false);
  const std::vector<EncodedExample> encoded = encode_examples(tok, examples, !o.data.text_pair_field.empty(),
                                                              size_t(max_len), &summary.truncated);
  std::vector<size_t> all(examples.size());
  std::iota(all.begin(), all.end(), size_t(0));
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
