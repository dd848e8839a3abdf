#include "classify/sequence_task.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include <ATen/ATen.h>

#include "classify/encode.h"
#include "classify/label_map.h"
#include "classify/metrics.h"
#include "classify/problem_type.h"
#include "classify/regression_metrics.h"

namespace bertpt::classify {

namespace {

// One labelled split, read, mapped to class ids and encoded.
struct Split {
  std::vector<Example> examples;
  std::vector<int64_t> labels;  // class ids (classification)
  std::vector<double> targets;  // numbers (regression)
  std::vector<EncodedExample> encoded;
  int64_t truncated = 0;
};

Split load_split(const std::string& path, const LabeledDataOptions& data, const LabelMap* labels, ProblemType type,
                 const tokenizer::Tokenizer& tok, int64_t max_len) {
  Split s;
  s.examples = read_labeled_data(path, data, /*require_label=*/true);
  if (type == ProblemType::Regression) s.targets = regression_targets(s.examples, path);
  else if (labels) s.labels = labels->ids_of(s.examples, path);
  s.encoded = encode_examples(tok, s.examples, !data.text_pair_field.empty(), size_t(max_len), &s.truncated);
  return s;
}

class SequenceTask : public FinetuneTask {
 public:
  SequenceTask(const FinetuneOptions& o, const tokenizer::Tokenizer& tok);

  int64_t train_size() const override { return int64_t(train_.examples.size()); }
  int64_t split_size(const std::string& split) const override {
    const Split* s = find(split);
    return s ? int64_t(s->examples.size()) : 0;
  }
  std::string data_summary() const override;
  int64_t num_labels() const override { return int64_t(labels_.size()); }
  bool per_token() const override { return false; }
  void describe(model::BertConfig& config) const override;
  double loss_items(const std::vector<size_t>& examples) const override { return double(examples.size()); }
  TrainingBatch training_batch(const std::vector<size_t>& examples, int64_t pad_id) const override;
  engine::MicroOutput loss(const at::Tensor& logits, const at::Tensor& labels) const override;
  std::string metric_for_best(const std::string& option) const override {
    return classify::metric_for_best(option, type_);
  }
  SplitScores evaluate(model::Classifier& model, const std::string& split, const std::string& metric,
                       const ClassifyOptions& options, engine::Collectives& coll) const override;
  void add_to_report(nlohmann::json& r) const override;
  TaskCard card() const override;

 private:
  bool regression() const { return type_ == ProblemType::Regression; }
  const Split* find(const std::string& split) const {
    const std::optional<Split>& s = split == "valid" ? valid_ : test_;
    return s ? &*s : nullptr;
  }
  int64_t truncated() const {
    return train_.truncated + (valid_ ? valid_->truncated : 0) + (test_ ? test_->truncated : 0);
  }
  SplitScores evaluate_classes(model::Classifier& model, const Split& split, const std::string& metric,
                               const ClassifyOptions& co, engine::Collectives& coll) const;
  SplitScores evaluate_regression(model::Classifier& model, const Split& split, const std::string& metric,
                                  const ClassifyOptions& co, engine::Collectives& coll) const;

  const int64_t max_seq_len_;
  const std::string test_name_;  // what the messages call the test split
  ProblemType type_ = ProblemType::SingleLabel;
  Split train_;
  std::optional<Split> valid_, test_;
  LabelMap labels_;                 // regression: the one output, LABEL_0 (transformers' name for it)
  std::vector<int64_t> per_class_;  // training examples per label
  int64_t majority_ = 0;            // the most frequent training label
};

SequenceTask::SequenceTask(const FinetuneOptions& o, const tokenizer::Tokenizer& tok)
    : max_seq_len_(o.max_seq_len), test_name_(o.test_name) {
  train_ = load_split(o.train, o.data, nullptr, ProblemType::SingleLabel, tok, o.max_seq_len);
  type_ = resolve_problem_type(o.problem_type, train_.examples);
  if (regression()) {
    train_.targets = regression_targets(train_.examples, o.train);
    labels_ = LabelMap::from_labels({"LABEL_0"}, o.train);
  } else {
    labels_ = LabelMap::from_examples(train_.examples, o.train);
    train_.labels = labels_.ids_of(train_.examples, o.train);
  }
  if (!o.valid.empty()) valid_ = load_split(o.valid, o.data, &labels_, type_, tok, o.max_seq_len);
  if (!o.test.empty()) test_ = load_split(o.test, o.data, &labels_, type_, tok, o.max_seq_len);
  per_class_.assign(labels_.size(), 0);
  for (int64_t l : train_.labels) per_class_[size_t(l)]++;
  majority_ = int64_t(std::max_element(per_class_.begin(), per_class_.end()) - per_class_.begin());
}

std::string SequenceTask::data_summary() const {
  std::string m = "data: " + std::to_string(train_.examples.size()) + " train";
  if (valid_) m += ", " + std::to_string(valid_->examples.size()) + " valid";
  if (test_) m += ", " + std::to_string(test_->examples.size()) + " " + test_name_;
  if (regression()) {
    const auto [lo, hi] = std::minmax_element(train_.targets.begin(), train_.targets.end());
    char range[96];
    std::snprintf(range, sizeof range, " examples; regression, training targets %g to %g", *lo, *hi);
    m += range;
  } else {
    m += " examples; " + std::to_string(labels_.size()) + " labels:";
    for (size_t i = 0; i < labels_.size(); ++i) {
      m += " " + labels_.label(int64_t(i)) + " (" + std::to_string(per_class_[i]) + ")";
    }
  }
  if (truncated() > 0) {
    m += "; " + std::to_string(truncated()) + " examples truncated to --max-seq-len " + std::to_string(max_seq_len_);
  }
  return m;
}

void SequenceTask::describe(model::BertConfig& config) const {
  config.architectures = {config.sequence_classifier_class()};
  config.extra["id2label"] = labels_.id2label_json().dump();
  config.extra["label2id"] = labels_.label2id_json().dump();
  config.extra["problem_type"] = nlohmann::json(problem_type_name(type_)).dump();
}

// The inputs and labels of `examples`: class ids (int64), or regression targets (fp32).
TrainingBatch SequenceTask::training_batch(const std::vector<size_t>& examples, int64_t pad_id) const {
  TrainingBatch batch{make_classifier_batch(train_.encoded, examples, pad_id), {}};
  const int64_t n = int64_t(examples.size());
  if (regression()) {
    batch.labels = at::empty({n}, at::kFloat);
    for (int64_t i = 0; i < n; ++i) batch.labels.data_ptr<float>()[i] = float(train_.targets[examples[size_t(i)]]);
    return batch;
  }
  batch.labels = at::empty({n}, at::kLong);
  for (int64_t i = 0; i < n; ++i) batch.labels.data_ptr<int64_t>()[i] = train_.labels[examples[size_t(i)]];
  return batch;
}

engine::MicroOutput SequenceTask::loss(const at::Tensor& logits, const at::Tensor& gold) const {
  if (regression()) {  // MSE, as transformers' MSELoss on logits.squeeze()
    at::Tensor loss_sum = (logits.to(at::kFloat).squeeze(1) - gold).pow(2).sum();
    return engine::MicroOutput{loss_sum, at::zeros({}, gold.options().dtype(at::kLong))};
  }
  at::Tensor loss_sum = at::cross_entropy_loss(logits.to(at::kFloat), gold, {}, at::Reduction::Sum);
  return engine::MicroOutput{loss_sum, logits.argmax(1).eq(gold).sum()};
}

SplitScores SequenceTask::evaluate(model::Classifier& model, const std::string& split, const std::string& metric,
                                   const ClassifyOptions& options, engine::Collectives& coll) const {
  const Split& s = *find(split);
  return regression() ? evaluate_regression(model, s, metric, options, coll)
                      : evaluate_classes(model, s, metric, options, coll);
}

// Sharded: the confusion matrices of the ranks are summed.
SplitScores SequenceTask::evaluate_classes(model::Classifier& model, const Split& split, const std::string& metric,
                                           const ClassifyOptions& co, engine::Collectives& coll) const {
  const std::vector<size_t> mine = eval_shard(split.encoded.size(), coll);
  const size_t k = labels_.size();
  std::vector<double> counts(k * k, 0.0);
  if (!mine.empty()) {
    at::Tensor predicted = classify(model, split.encoded, mine, co).argmax(1);
    const int64_t* p = predicted.data_ptr<int64_t>();
    for (size_t i = 0; i < mine.size(); ++i) counts[size_t(split.labels[mine[i]]) * k + size_t(p[i])] += 1;
  }
  coll.sum(counts);
  ConfusionMatrix cm(k);
  for (size_t g = 0; g < k; ++g) {
    for (size_t q = 0; q < k; ++q) cm.add(int64_t(g), int64_t(q), int64_t(counts[g * k + q]));
  }
  int64_t hits = 0;
  for (int64_t l : split.labels) hits += l == majority_ ? 1 : 0;
  const double majority_accuracy = split.labels.empty() ? 0.0 : double(hits) / double(split.labels.size());
  const ClassificationMetrics m = cm.metrics(labels_.labels());
  SplitScores s;
  s.metrics = m.to_json();
  s.metrics["majority_accuracy"] = majority_accuracy;
  for (const char* key : {"accuracy", "macro_f1", "mcc", "binary_f1"}) {
    if (s.metrics.contains(key)) s.headline[key] = s.metrics[key];
  }
  s.baseline["majority_accuracy"] = majority_accuracy;
  s.score = m.get(metric);
  char baseline[96];
  std::snprintf(baseline, sizeof baseline, "majority-class baseline accuracy %.4f\n", majority_accuracy);
  s.table = baseline + format_metrics_table(m);
  return s;
}

// Sharded: rank r predicts examples r, r + world, ...; the predictions are summed into one vector
// (zeros elsewhere), so every rank scores all of them.
SplitScores SequenceTask::evaluate_regression(model::Classifier& model, const Split& split, const std::string& metric,
                                              const ClassifyOptions& co, engine::Collectives& coll) const {
  const std::vector<size_t> mine = eval_shard(split.encoded.size(), coll);
  std::vector<double> predicted(split.encoded.size(), 0.0);
  if (!mine.empty()) {
    const at::Tensor out = classify(model, split.encoded, mine, co).to(at::kDouble).contiguous();
    for (size_t i = 0; i < mine.size(); ++i) predicted[mine[i]] = out.data_ptr<double>()[i];
  }
  coll.sum(predicted);
  const RegressionMetrics m = regression_metrics(split.targets, predicted);
  SplitScores s;
  s.metrics = m.to_json();
  for (const char* key : {"pearson", "spearman", "mse"}) {
    if (s.metrics.contains(key)) s.headline[key] = s.metrics[key];
  }
  s.baseline = nlohmann::json::object();
  s.score = m.get(metric);
  char line[128];
  std::snprintf(line, sizeof line, "Pearson %.4f | Spearman %.4f | MSE %.4f\n", m.pearson, m.spearman, m.mse);
  s.table = line;
  return s;
}

void SequenceTask::add_to_report(nlohmann::json& r) const {
  r["task"] = "text-classification";
  r["problem_type"] = problem_type_name(type_);
  r["labels"] = labels_.labels();
  if (!regression()) {
    r["train_label_counts"] = per_class_;
    r["majority_label"] = labels_.label(majority_);
  }
  r["truncated_examples"] = truncated();
}

TaskCard SequenceTask::card() const {
  if (regression())
    return {"Text regression model", "text-classification", "This is a wonderful film.", "pearson", "spearman",
            " Pearson / Spearman"};
  return {"Text classifier", "text-classification", "This is a wonderful film.", "accuracy",
          "macro_f1",        " accuracy / macro-F1"};
}

}  // namespace

std::unique_ptr<FinetuneTask> make_sequence_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok) {
  return std::make_unique<SequenceTask>(options, tok);
}

}  // namespace bertpt::classify
