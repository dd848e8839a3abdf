#include "classify/token_task.h"

#include <optional>
#include <utility>

#include <ATen/ATen.h>

#include "classify/entity_metrics.h"
#include "classify/label_map.h"
#include "classify/tagged_words.h"
#include "classify/tagger.h"
#include "common/error.h"

namespace bertpt::classify {

namespace {

constexpr int64_t kIgnored = -100;  // the label the loss skips (transformers' ignore_index)

// One CoNLL split: its sentences, their tag ids per word and their encoding.
struct TagSplit {
  std::vector<TaggedSentence> sentences;
  std::vector<std::vector<int64_t>> tags;  // per sentence, per word
  EncodedSentences encoded;
  int64_t words = 0;
};

// The tag ids of `s`'s words; BadInput naming the file, line and tag for a tag the map lacks.
std::vector<int64_t> tag_ids(const TaggedSentence& s, const LabelMap& labels, const std::string& path) {
  std::vector<int64_t> ids(s.tags.size());
  for (size_t w = 0; w < s.tags.size(); ++w) {
    ids[w] = labels.id(s.tags[w]);
    if (ids[w] < 0) {  // a sentence's words are on consecutive lines
      throw BadInput(path + ":" + std::to_string(s.line + w) + ": tag '" + s.tags[w] + "' is not in the training data",
                     "every tag of --valid and --test must occur in --train");
    }
  }
  return ids;
}

// `sentences`, read from `path`, with their tag ids and encoding.
TagSplit make_split(std::vector<TaggedSentence> sentences, const std::string& path, const LabelMap& labels,
                    const tokenizer::Tokenizer& tok, int64_t max_len) {
  TagSplit s;
  s.sentences = std::move(sentences);
  for (const TaggedSentence& sentence : s.sentences) {
    s.tags.push_back(tag_ids(sentence, labels, path));
    s.words += int64_t(sentence.words.size());
  }
  s.encoded = encode_sentences(tok, s.sentences, size_t(max_len));
  return s;
}

class TokenTask : public FinetuneTask {
 public:
  TokenTask(const FinetuneOptions& o, const tokenizer::Tokenizer& tok);

  int64_t train_size() const override { return int64_t(train_.sentences.size()); }
  int64_t split_size(const std::string& split) const override {
    const TagSplit* s = find(split);
    return s ? int64_t(s->sentences.size()) : 0;
  }
  std::string data_summary() const override;
  int64_t num_labels() const override { return int64_t(labels_.size()); }
  bool per_token() const override { return true; }
  void describe(model::BertConfig& config) const override;
  double loss_items(const std::vector<size_t>& examples) const override;
  TrainingBatch training_batch(const std::vector<size_t>& examples, int64_t pad_id) const override;
  engine::MicroOutput loss(const at::Tensor& logits, const at::Tensor& labels) const override;
  std::string metric_for_best(const std::string& option) const override;
  SplitScores evaluate(model::Classifier& model, const std::string& split, const std::string& metric,
                       const ClassifyOptions& options, engine::Collectives& coll) const override;
  void add_to_report(nlohmann::json& r) const override;
  TaskCard card() const override {
    return {"Token classifier (NER)",
            "token-classification",
            "Colorectal cancer is common in families with APC.",
            "f1",
            "accuracy",
            " entity F1 / word accuracy"};
  }

 private:
  const TagSplit* find(const std::string& split) const {
    const std::optional<TagSplit>& s = split == "valid" ? valid_ : test_;
    return s ? &*s : nullptr;
  }
  int64_t truncated() const {
    return train_.encoded.truncated + (valid_ ? valid_->encoded.truncated : 0) + (test_ ? test_->encoded.truncated : 0);
  }

  const int64_t max_seq_len_;
  const std::string test_name_;  // what the messages call the test split
  LabelMap labels_;              // the training tags, sorted (run_ner.py's sorted label list)
  TagSplit train_;
  std::optional<TagSplit> valid_, test_;
  std::vector<std::vector<int64_t>> token_labels_;  // per training sentence, per id: the tag or kIgnored
  std::vector<int64_t> labelled_;                   // per training sentence: its ids with a tag
};

TokenTask::TokenTask(const FinetuneOptions& o, const tokenizer::Tokenizer& tok)
    : max_seq_len_(o.max_seq_len), test_name_(o.test_name) {
  std::vector<TaggedSentence> train = read_conll(o.train, /*require_tags=*/true);
  labels_ = LabelMap::from_labels(tag_set(train), o.train);
  train_ = make_split(std::move(train), o.train, labels_, tok, o.max_seq_len);
  auto load = [&](const std::string& path) {
    return make_split(read_conll(path, /*require_tags=*/true), path, labels_, tok, o.max_seq_len);
  };
  if (!o.valid.empty()) valid_ = load(o.valid);
  if (!o.test.empty()) test_ = load(o.test);
  for (size_t i = 0; i < train_.sentences.size(); ++i) {
    token_labels_.push_back(first_token_labels(train_.encoded.words[i], train_.tags[i]));
    int64_t n = 0;
    for (int64_t l : token_labels_.back()) n += l != kIgnored ? 1 : 0;
    labelled_.push_back(n);
  }
}

std::string TokenTask::data_summary() const {
  std::string m = "data: " + std::to_string(train_.sentences.size()) + " train";
  if (valid_) m += ", " + std::to_string(valid_->sentences.size()) + " valid";
  if (test_) m += ", " + std::to_string(test_->sentences.size()) + " " + test_name_;
  m += " sentences (" + std::to_string(train_.words) + " training words); " + std::to_string(labels_.size()) + " tags:";
  for (const std::string& tag : labels_.labels()) m += " " + tag;
  if (truncated() > 0) {
    m += "; " + std::to_string(truncated()) + " sentences truncated to --max-seq-len " + std::to_string(max_seq_len_) +
         " (their cut words are not scored, as in transformers' example)";
  }
  return m;
}

void TokenTask::describe(model::BertConfig& config) const {
  config.architectures = {config.token_classifier_class()};
  config.extra["id2label"] = labels_.id2label_json().dump();
  config.extra["label2id"] = labels_.label2id_json().dump();
}

double TokenTask::loss_items(const std::vector<size_t>& examples) const {
  double n = 0;
  for (size_t e : examples) n += double(labelled_[e]);
  return n;
}

TrainingBatch TokenTask::training_batch(const std::vector<size_t>& examples, int64_t pad_id) const {
  TrainingBatch batch{make_classifier_batch(train_.encoded.examples, examples, pad_id), {}};
  const int64_t t = batch.inputs.input_ids.size(1);
  batch.labels = at::full({int64_t(examples.size()), t}, kIgnored, at::kLong);
  int64_t* out = batch.labels.data_ptr<int64_t>();
  for (size_t r = 0; r < examples.size(); ++r) {
    const std::vector<int64_t>& labels = token_labels_[examples[r]];
    std::copy(labels.begin(), labels.end(), out + int64_t(r) * t);
  }
  return batch;
}

engine::MicroOutput TokenTask::loss(const at::Tensor& logits, const at::Tensor& gold) const {
  const at::Tensor flat = logits.to(at::kFloat).reshape({-1, logits.size(-1)});
  const at::Tensor g = gold.reshape({-1});
  at::Tensor loss_sum = at::cross_entropy_loss(flat, g, {}, at::Reduction::Sum, kIgnored);
  return engine::MicroOutput{loss_sum, (flat.argmax(1).eq(g) & g.ne(kIgnored)).sum()};
}

std::string TokenTask::metric_for_best(const std::string& option) const {
  if (option == "auto") return "f1";
  if (option != "f1" && option != "precision" && option != "recall" && option != "accuracy") {
    throw BadInput("--metric-for-best " + option + " is not a metric of token classification",
                   "use f1, precision or recall (entity-level) or accuracy (per word)");
  }
  return option;
}

// Sharded: rank r tags sentences r, r + world, ...; the tag ids + 1 of every word are summed into one
// vector (0 elsewhere and for cut words), so every rank scores all of them.
SplitScores TokenTask::evaluate(model::Classifier& model, const std::string& split, const std::string& metric,
                                const ClassifyOptions& co, engine::Collectives& coll) const {
  const TagSplit& s = *find(split);
  std::vector<size_t> offset(s.sentences.size() + 1, 0);
  for (size_t i = 0; i < s.sentences.size(); ++i) offset[i + 1] = offset[i] + s.sentences[i].words.size();
  std::vector<double> predicted(offset.back(), 0.0);
  const std::vector<size_t> mine = eval_shard(s.sentences.size(), coll);
  const std::vector<SentenceTags> tags = tag_sentences(model, s.encoded, mine, co);
  for (size_t k = 0; k < mine.size(); ++k) {
    for (size_t w = 0; w < tags[k].tag.size(); ++w) predicted[offset[mine[k]] + w] = double(tags[k].tag[w] + 1);
  }
  coll.sum(predicted);
  std::vector<std::vector<std::string>> gold(s.sentences.size()), guess(s.sentences.size());
  for (size_t i = 0; i < s.sentences.size(); ++i) {
    for (size_t w = 0; w < s.sentences[i].words.size(); ++w) {
      const int64_t p = int64_t(predicted[offset[i] + w]) - 1;
      if (p < 0) continue;  // cut off by truncation: not scored (transformers' label -100)
      gold[i].push_back(s.sentences[i].tags[w]);
      guess[i].push_back(labels_.label(p));
    }
  }
  const EntityMetrics m = entity_metrics(gold, guess);
  SplitScores out;
  out.metrics = m.to_json();
  out.headline = {
      {"f1", m.micro.f1}, {"precision", m.micro.precision}, {"recall", m.micro.recall}, {"accuracy", m.token_accuracy}};
  out.baseline = nlohmann::json::object();
  out.score = out.headline[metric].get<double>();
  out.table = format_entity_table(m);
  return out;
}

void TokenTask::add_to_report(nlohmann::json& r) const {
  r["task"] = "token-classification";
  r["labels"] = labels_.labels();
  r["train_words"] = train_.words;
  r["truncated_examples"] = truncated();
}

}  // namespace

std::unique_ptr<FinetuneTask> make_token_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok) {
  return std::make_unique<TokenTask>(options, tok);
}

}  // namespace bertpt::classify
