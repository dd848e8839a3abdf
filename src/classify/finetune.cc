#include "classify/finetune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "classify/classify.h"
#include "classify/encode.h"
#include "classify/label_map.h"
#include "classify/metrics.h"
#include "classify/problem_type.h"
#include "classify/regression_metrics.h"
#include "common/atomic_file.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/json_fields.h"
#include "common/jsonl_log.h"
#include "engine/adamw.h"
#include "engine/batch_dump.h"
#include "engine/collectives.h"
#include "engine/device.h"
#include "engine/lr_schedule.h"
#include "engine/model_card.h"
#include "engine/precision.h"
#include "engine/run_checkpoint.h"
#include "engine/run_log.h"
#include "engine/step_runner.h"
#include "engine/training_run.h"
#include "model/architecture.h"
#include "model/checkpoint.h"
#include "model/torch_compat.h"
#include "tokenizer/hf_files.h"

namespace bertpt::classify {

namespace fs = std::filesystem;
using engine::Clock;
using engine::seconds_since;

namespace {

// One labelled split, read, mapped to class ids and encoded.
struct Split {
  std::string path;
  std::vector<classify::Example> examples;
  std::vector<int64_t> labels;  // class ids (classification)
  std::vector<double> targets;  // numbers (regression)
  std::vector<classify::EncodedExample> encoded;
  int64_t truncated = 0;
};

Split load_split(const std::string& path, const classify::LabeledDataOptions& data, const classify::LabelMap* labels,
                 ProblemType type, const tokenizer::Tokenizer& tok, int64_t max_len) {
  Split s;
  s.path = path;
  s.examples = classify::read_labeled_data(path, data, /*require_label=*/true);
  if (type == ProblemType::Regression) s.targets = regression_targets(s.examples, path);
  else if (labels) s.labels = labels->ids_of(s.examples, path);
  s.encoded = classify::encode_examples(tok, s.examples, !data.text_pair_field.empty(), size_t(max_len), &s.truncated);
  return s;
}

// A deterministic shuffle (the same on every rank and platform): Fisher-Yates driven by mix64.
std::vector<size_t> epoch_order(size_t n, uint64_t seed, int64_t epoch) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  uint64_t state = mix64(seed ^ 0x46494E4554554E45ull) ^ uint64_t(epoch);
  for (size_t i = n; i > 1; --i) {
    state = mix64(state + 0x9E3779B97F4A7C15ull);
    std::swap(order[i - 1], order[state % i]);
  }
  return order;
}

struct SplitEval {
  bool regression = false;
  classify::ClassificationMetrics metrics;  // classification
  double majority_accuracy = 0;             // predicting the most frequent training label for everything
  RegressionMetrics values;                 // regression

  double score(const std::string& metric) const { return regression ? values.get(metric) : metrics.get(metric); }
  nlohmann::json to_json() const;
  // The headline metrics as PREFIX_NAME keys of `record` (valid_accuracy, test_pearson, ...).
  void add_flat(nlohmann::json& record, const std::string& prefix) const;
};

nlohmann::json SplitEval::to_json() const {
  if (regression) return values.to_json();
  nlohmann::json j = metrics.to_json();
  j["majority_accuracy"] = majority_accuracy;
  return j;
}

void SplitEval::add_flat(nlohmann::json& record, const std::string& prefix) const {
  const nlohmann::json j = to_json();
  const std::vector<const char*> keys = regression ? std::vector<const char*>{"pearson", "spearman", "mse"}
                                                   : std::vector<const char*>{"accuracy", "macro_f1", "mcc",
                                                                              "binary_f1", "majority_accuracy"};
  for (const char* key : keys) {
    if (j.contains(key)) record[prefix + "_" + key] = j[key];
  }
}

// Sharded regression evaluation: rank r predicts examples r, r + world, ...; the predictions are
// summed into one vector (zeros elsewhere), so every rank scores all of them.
SplitEval evaluate_regression(model::SequenceClassifier& model, const Split& split, const ClassifyOptions& co,
                              engine::Collectives& coll) {
  std::vector<size_t> mine;
  for (size_t i = size_t(coll.rank()); i < split.encoded.size(); i += size_t(coll.world_size())) mine.push_back(i);
  std::vector<double> predicted(split.encoded.size(), 0.0);
  if (!mine.empty()) {
    const at::Tensor out = classify(model, split.encoded, mine, co).to(at::kDouble).contiguous();
    for (size_t i = 0; i < mine.size(); ++i) predicted[mine[i]] = out.data_ptr<double>()[i];
  }
  coll.sum(predicted);
  SplitEval e;
  e.regression = true;
  e.values = regression_metrics(split.targets, predicted);
  return e;
}

// Sharded evaluation: rank r classifies examples r, r + world, ...; the confusion matrices are summed.
SplitEval evaluate_split(model::SequenceClassifier& model, const Split& split, const classify::LabelMap& labels,
                         int64_t majority, const ClassifyOptions& co, engine::Collectives& coll) {
  std::vector<size_t> mine;
  for (size_t i = size_t(coll.rank()); i < split.encoded.size(); i += size_t(coll.world_size())) mine.push_back(i);
  const size_t k = labels.size();
  std::vector<double> counts(k * k, 0.0);
  if (!mine.empty()) {
    at::Tensor predicted = classify(model, split.encoded, mine, co).argmax(1);
    const int64_t* p = predicted.data_ptr<int64_t>();
    for (size_t i = 0; i < mine.size(); ++i) counts[size_t(split.labels[mine[i]]) * k + size_t(p[i])] += 1;
  }
  coll.sum(counts);
  classify::ConfusionMatrix cm(k);
  int64_t hits = 0;
  for (size_t g = 0; g < k; ++g) {
    for (size_t q = 0; q < k; ++q) cm.add(int64_t(g), int64_t(q), int64_t(counts[g * k + q]));
  }
  for (int64_t l : split.labels) hits += l == majority ? 1 : 0;
  SplitEval e;
  e.metrics = cm.metrics(labels.labels());
  e.majority_accuracy = split.labels.empty() ? 0.0 : double(hits) / double(split.labels.size());
  return e;
}

// The dropout stream of micro-step `micro` of step `step` on `rank` (micro-step 0: the stream of
// fine-tuning without accumulation, unchanged).
uint64_t dropout_seed(uint64_t seed, int64_t step, int rank, int64_t micro) {
  const uint64_t s = mix64(mix64(seed ^ 0x434C4153534946ull) ^ uint64_t(step)) ^ (uint64_t(rank) << 40);
  return micro == 0 ? s : mix64(s ^ uint64_t(micro));
}

using Message = std::function<void(const std::string&)>;

FinetuneOptions validated(const FinetuneOptions& o) {
  o.validate();
  return o;
}

// --tokenizer, else the model directory's.
std::string resolve_tokenizer_dir(const FinetuneOptions& o) {
  if (!o.tokenizer.empty()) return o.tokenizer;
  std::error_code ec;
  if (!fs::is_directory(o.model, ec)) {
    throw BadInput("--model " + o.model + " is not a checkpoint directory, so it has no tokenizer",
                   "for a randomly initialised model (a preset), pass --tokenizer DIR");
  }
  if (!tokenizer::has_tokenizer_files(o.model)) {
    throw BadInput("model directory " + o.model + " has no tokenizer (tokenizer.json or vocab.txt)",
                   "pass --tokenizer DIR with the tokenizer the model was pre-trained with");
  }
  return o.model;
}

// The labelled splits, encoded, with the label map of the training split.
struct LabelledData {
  ProblemType type = ProblemType::SingleLabel;
  Split train;
  std::optional<Split> valid, test;
  LabelMap labels;                 // regression: the one output, LABEL_0 (transformers' name for it)
  std::vector<int64_t> per_class;  // training examples per label
  int64_t majority = 0;            // the most frequent training label
  int64_t truncated() const { return train.truncated + (valid ? valid->truncated : 0) + (test ? test->truncated : 0); }
};

LabelledData load_data(const FinetuneOptions& o, const tokenizer::Tokenizer& tok) {
  LabelledData d;
  d.train = load_split(o.train, o.data, nullptr, ProblemType::SingleLabel, tok, o.max_seq_len);
  d.type = resolve_problem_type(o.problem_type, d.train.examples);
  if (d.type == ProblemType::Regression) {
    d.train.targets = regression_targets(d.train.examples, o.train);
    d.labels = LabelMap::from_labels({"LABEL_0"}, o.train);
  } else {
    d.labels = LabelMap::from_examples(d.train.examples, o.train);
    d.train.labels = d.labels.ids_of(d.train.examples, o.train);
  }
  if (!o.valid.empty()) d.valid = load_split(o.valid, o.data, &d.labels, d.type, tok, o.max_seq_len);
  if (!o.test.empty()) d.test = load_split(o.test, o.data, &d.labels, d.type, tok, o.max_seq_len);
  d.per_class.assign(d.labels.size(), 0);
  for (int64_t l : d.train.labels) d.per_class[size_t(l)]++;
  d.majority = int64_t(std::max_element(d.per_class.begin(), d.per_class.end()) - d.per_class.begin());
  return d;
}

std::string data_summary(const LabelledData& d, int64_t max_seq_len) {
  std::string m = "data: " + std::to_string(d.train.examples.size()) + " train";
  if (d.valid) m += ", " + std::to_string(d.valid->examples.size()) + " valid";
  if (d.test) m += ", " + std::to_string(d.test->examples.size()) + " test";
  if (d.type == ProblemType::Regression) {
    const auto [lo, hi] = std::minmax_element(d.train.targets.begin(), d.train.targets.end());
    char range[96];
    std::snprintf(range, sizeof range, " examples; regression, training targets %g to %g", *lo, *hi);
    m += range;
  } else {
    m += " examples; " + std::to_string(d.labels.size()) + " labels:";
    for (size_t i = 0; i < d.labels.size(); ++i) {
      m += " " + d.labels.label(int64_t(i)) + " (" + std::to_string(d.per_class[i]) + ")";
    }
  }
  if (d.truncated() > 0) {
    m += "; " + std::to_string(d.truncated()) + " examples truncated to --max-seq-len " + std::to_string(max_seq_len);
  }
  return m;
}

// A checkpoint's encoder with a new head, or a random initialisation from a preset; checked against
// the tokenizer and --max-seq-len.
std::shared_ptr<model::SequenceClassifier> make_classifier(const FinetuneOptions& o, const tokenizer::Tokenizer& tok,
                                                           const std::string& tok_dir, int64_t num_labels,
                                                           model::BertConfig& config, const Message& message) {
  at::manual_seed(o.seed);
  std::error_code ec;
  std::shared_ptr<model::SequenceClassifier> classifier;
  if (fs::is_directory(o.model, ec)) {
    model::LoadReport report;
    classifier = model::load_sequence_classifier(o.model, num_labels, &config, &report);
    if (!report.missing.empty()) {
      message("initialised a new classification head (" + std::to_string(report.missing.size()) +
              " tensors not in the checkpoint, e.g. " + report.missing.front() + ")");
    }
  } else {
    config = model::resolve_model_config(o.model);
    config.vocab_size = int64_t(tok.vocab_size());
    classifier = model::make_sequence_classifier(config, num_labels);
    message("random initialisation from " + o.model + " (no pre-training)");
  }
  if (config.vocab_size != int64_t(tok.vocab_size())) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) +
                       " but the tokenizer " + tok_dir + " has " + std::to_string(tok.vocab_size()),
                   "fine-tune with the tokenizer the model was pre-trained with");
  }
  if (o.max_seq_len > config.max_position_embeddings) {
    throw BadInput("--max-seq-len " + std::to_string(o.max_seq_len) + " exceeds the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings));
  }
  return classifier;
}

// One fine-tuning run: the task's side of the engine (examples, the classification loss, evaluation
// per epoch, best/ and the report), with the optimizer step itself in engine::StepRunner.
// Every epoch is ceil(N / global batch) steps; with several ranks the last batch is filled up from
// the epoch's start (as torch's DistributedSampler pads), so every rank has the same number of examples.
class Finetuning {
 public:
  Finetuning(const FinetuneOptions& options, const FinetuneHooks& hooks);
  FinetuneResult run();

 private:
  void build_model();
  void restore(const std::string& checkpoint_dir);
  engine::StepSettings step_settings() const;
  void open_output_directory();
  // Trains the rest of the epoch; false when a signal stopped it before its last step.
  bool train_epoch(int64_t epoch, double& epoch_loss);
  nlohmann::json trainer_state(double epoch_loss) const;
  std::string save(double epoch_loss);
  std::string model_card(const nlohmann::json& report) const;
  engine::MicroForward classify_forward(const std::vector<size_t>& order, int64_t first, int64_t count);
  at::Tensor gold_of(const std::vector<size_t>& examples) const;
  bool evaluate_epoch(int64_t epoch, double loss_sum, double seconds);
  nlohmann::json report(std::vector<SplitReport>& splits);
  SplitEval evaluate(const Split& split) {
    if (data_.type == ProblemType::Regression)
      return evaluate_regression(*model_, split, classify_options_, run_.collectives());
    return evaluate_split(*model_, split, data_.labels, data_.majority, classify_options_, run_.collectives());
  }
  void log(const nlohmann::json& record) { run_.log(record); }
  void message(const std::string& m) const { run_.message(m); }

  const FinetuneOptions o_;
  const FinetuneHooks& hooks_;
  engine::TrainingRun run_;  // the process, OUT, the optimizer and the step (engine/training_run.h)
  const std::string tok_dir_;
  const tokenizer::Tokenizer tok_;
  const LabelledData data_;
  const std::string metric_;  // --metric-for-best for this task
  model::BertConfig config_;
  std::shared_ptr<model::SequenceClassifier> model_;
  ClassifyOptions classify_options_;
  engine::LrSchedule schedule_;
  int64_t n_ = 0, global_batch_ = 0, steps_per_epoch_ = 0, step_ = 0;
  int64_t logging_steps_ = 0;  // --logging-steps, or its automatic interval
  fs::path out_, best_dir_;
  nlohmann::json history_ = nlohmann::json::array();
  double best_score_ = -1;
  int64_t best_epoch_ = 0;
  std::string resume_dir_;
  double resumed_epoch_loss_ = 0;  // the training loss of the resumed epoch's steps before the checkpoint
  bool stop_ = false;              // the ranks agreed to stop (a signal)
};

Finetuning::Finetuning(const FinetuneOptions& options, const FinetuneHooks& hooks)
    : o_(validated(options)),
      hooks_(hooks),
      run_(engine::run_spec_of(o_), hooks),
      tok_dir_(resolve_tokenizer_dir(options)),
      tok_(tokenizer::load_tokenizer(tok_dir_)),
      data_(load_data(options, tok_)),
      metric_(metric_for_best(options.metric_for_best, data_.type)) {
  message(data_summary(data_, o_.max_seq_len));
  out_ = fs::path(o_.output_dir);
  best_dir_ = out_ / "best";
  // One fine-tuning per OUT directory at a time; taken before an earlier run's files may be removed.
  run_.lock_output_dir();
  resume_dir_ = run_.find_resume_checkpoint();
  run_.claim_output_dir(!resume_dir_.empty(), {"best", "results.json"}, "a fine-tuned model or an unfinished run");
  build_model();
  n_ = int64_t(data_.train.examples.size());
  global_batch_ = o_.per_device_batch_size * o_.grad_accum * run_.world();
  steps_per_epoch_ = (n_ + global_batch_ - 1) / global_batch_;
  const int64_t total_steps = steps_per_epoch_ * o_.epochs;
  schedule_ = {engine::LrScheduleKind::Linear, o_.learning_rate,
               int64_t(std::ceil(o_.warmup_ratio * double(total_steps))), total_steps};
  logging_steps_ = o_.logging_steps > 0 ? o_.logging_steps : engine::auto_logging_steps(total_steps, 50);
  if (!resume_dir_.empty()) restore(resume_dir_);
  else run_.start_steps(step_settings());
  open_output_directory();
  classify_options_.batch_size = o_.eval_batch_size;
  classify_options_.device = run_.device().str();
  classify_options_.bf16 = run_.bf16();
  classify_options_.pad_id = std::max<int64_t>(0, tok_.special_ids().pad);
}

void Finetuning::build_model() {
  model_ = make_classifier(o_, tok_, tok_dir_, int64_t(data_.labels.size()), config_,
                           [this](const std::string& m) { message(m); });
  config_.architectures = {config_.sequence_classifier_class()};
  config_.extra["id2label"] = data_.labels.id2label_json().dump();
  config_.extra["label2id"] = data_.labels.label2id_json().dump();
  config_.extra["problem_type"] = nlohmann::json(problem_type_name(data_.type)).dump();
  if (!resume_dir_.empty()) {
    at::NoGradGuard no_grad;
    model::load_safetensors(*model_, (fs::path(resume_dir_) / "model.safetensors").string());
  }
  model_->to(run_.device());
  model_->train();
  run_.attach_model(*model_, engine::AdamWOptions{0.9, 0.999, 1e-8, o_.weight_decay});
}

engine::StepSettings Finetuning::step_settings() const {
  return engine::step_settings_of(o_, [seed = o_.seed, rank = run_.rank()](int64_t step, int64_t micro) {
    return dropout_seed(seed, step, rank, micro);
  });
}

// OUT: the effective config and a fresh metrics.jsonl (a resumed run keeps the records up to its
// checkpoint, and best/); an earlier fine-tuned model was refused or cleared by claim_output_dir.
void Finetuning::open_output_directory() {
  if (run_.main()) {
    std::error_code ec;
    if (resume_dir_.empty()) fs::remove_all(best_dir_, ec);
    fs::remove(out_ / "results.json", ec);
  }
  run_.open_run_log(step_, nlohmann::json::parse(config_.to_json()));
}

// What a resumed run must share with the one it continues: everything that defines the result.
nlohmann::json resume_fingerprint(const FinetuneOptions& o) {
  nlohmann::json j = o.to_json();
  for (const std::string& key : kMayChangeOnResume) j.erase(key);
  return j;
}

// The optimizer, counters, history and position of the checkpoint (its weights were loaded with the
// model, before the ranks synchronised them).
void Finetuning::restore(const std::string& dir) {
  const nlohmann::json state = engine::read_trainer_state(dir, {"task", "options", "epoch_loss", "history",
                                                                "best_score", "best_epoch", "skipped_steps",
                                                                "consecutive_nonfinite_steps"});
  if (state["task"] != "finetune" || state["options"] != resume_fingerprint(o_)) {
    throw BadInput("cannot resume " + dir + ": it is not a checkpoint of a fine-tuning run with these options",
                   "resume with the options of the interrupted run (its run_config.json), or start afresh with "
                   "--overwrite-output-dir");
  }
  // A field of the wrong type names the file and the field (common/json_fields.h).
  const JsonFields f(state, dir + "/trainer_state.json", "", "the checkpoint is corrupt; resume from another");
  step_ = f.i64("step");
  history_ = f.array("history");
  best_score_ = f.number("best_score");
  best_epoch_ = f.i64("best_epoch");
  resumed_epoch_loss_ = f.number("epoch_loss");
  run_.start_steps(step_settings(), dir, state);
  message("resuming " + dir + " at step " + std::to_string(step_) + " of " + std::to_string(schedule_.total));
}

nlohmann::json Finetuning::trainer_state(double epoch_loss) const {
  return {{"task", "finetune"},
          {"options", resume_fingerprint(o_)},
          {"epoch_loss", epoch_loss},
          {"history", history_},
          {"best_score", best_score_},
          {"best_epoch", best_epoch_},
          {"skipped_steps", run_.runner().skipped_steps()},
          {"consecutive_nonfinite_steps", run_.runner().consecutive_bad_steps()},
          {"rng", "example order permutation(seed, epoch); dropout hash(seed, step, rank, micro_step)"}};
}

// A metric of a report: its digits, or "n/a" for null (a correlation of constant predictions).
std::string metric_text(const nlohmann::json& v) { return v.is_number() ? std::to_string(v.get<double>()) : "n/a"; }

// The card of the fine-tuned model (engine/model_card.h): the options, the data, the epochs so far
// and, given results.json's `report`, the best model's metrics on valid and test.
std::string Finetuning::model_card(const nlohmann::json& report) const {
  engine::ModelCard card;
  card.title = std::string(data_.type == ProblemType::Regression ? "Text regression model" : "Text classifier") +
               " fine-tuned with bertpt from " + o_.model;
  card.summary = "A " + config_.sequence_classifier_class() + " model fine-tuned by bertpt (" +
                 std::string(BERTPT_VERSION) + ") from " + o_.model + " on " + o_.train +
                 ". Labels: " + data_.labels.id2label_json().dump() +
                 ". It loads with `AutoModelForSequenceClassification.from_pretrained(PATH)`.";
  card.pipeline_tag = "text-classification";
  card.tags = {config_.model_type, "text-classification", "bertpt"};
  card.config = config_;
  card.parameters = model::count_parameters(*model_);
  card.data = {{"training examples", engine::card_count(double(n_)) + " (" + o_.train + ")"},
               {"labels", std::to_string(data_.labels.size())},
               {"max sequence length", std::to_string(o_.max_seq_len) + " tokens"}};
  if (data_.valid)
    card.data.push_back({"validation examples", engine::card_count(double(data_.valid->examples.size()))});
  if (data_.test) card.data.push_back({"test examples", engine::card_count(double(data_.test->examples.size()))});
  card.training = {
      {"epochs", std::to_string(history_.size()) + " of " + std::to_string(o_.epochs)},
      {"steps", engine::card_count(double(step_))},
      {"global batch", std::to_string(global_batch_)},
      {"optimizer", "AdamW, peak lr " + std::to_string(o_.learning_rate) + ", linear schedule, warmup ratio " +
                        std::to_string(o_.warmup_ratio) + ", weight decay " + std::to_string(o_.weight_decay)},
      {"precision / device", o_.precision + " / " + run_.device().str() + " × " + std::to_string(run_.world())},
      {"seed", std::to_string(o_.seed)},
      {"software", std::string("bertpt ") + BERTPT_VERSION}};
  if (best_epoch_ > 0) card.results.push_back({"best epoch", std::to_string(best_epoch_)});
  const bool regression = data_.type == ProblemType::Regression;
  const std::string first = regression ? "pearson" : "accuracy", second = regression ? "spearman" : "macro_f1";
  const std::string names = regression ? " Pearson / Spearman" : " accuracy / macro-F1";
  for (const std::string split : {"valid", "test"}) {
    if (report.is_object() && report.contains(split + "_" + first)) {
      card.results.push_back({split + names, metric_text(report[split + "_" + first]) + " / " +
                                                 metric_text(report[split + "_" + second])});
    }
  }
  if (card.results.size() <= 1 && !history_.empty() && history_.back().contains("valid_" + first)) {
    card.results.push_back({"valid " + first + " (epoch " + std::to_string(history_.size()) + ")",
                            metric_text(history_.back()["valid_" + first])});
  }
  card.example_input = "This is a wonderful film.";
  return engine::render_model_card(card);
}

// OUT/checkpoint-STEP, replacing the previous one. Returns its path.
std::string Finetuning::save(double epoch_loss) {
  return run_.save_checkpoint(
      step_, *model_, config_, [&] { return trainer_state(epoch_loss); }, tok_dir_,
      [this] { return model_card(nullptr); }, 1);
}

FinetuneResult Finetuning::run() {
  const auto t_start = Clock::now();
  message("training: " + std::to_string(o_.epochs) + " epochs x " + std::to_string(steps_per_epoch_) +
          " steps, global batch " + std::to_string(global_batch_) + " (" + std::to_string(o_.per_device_batch_size) +
          (o_.grad_accum > 1 ? " x " + std::to_string(o_.grad_accum) + " accumulated" : "") + " x " +
          std::to_string(run_.world()) + " ranks), lr " + std::to_string(o_.learning_rate) + ", warmup " +
          std::to_string(schedule_.warmup) + " steps, " + o_.precision + " on " + run_.device().str());
  FinetuneResult result;
  result.best_dir = best_dir_.string();
  for (int64_t epoch = step_ / steps_per_epoch_ + 1; epoch <= o_.epochs; ++epoch) {
    const auto t_epoch = Clock::now();
    double loss_sum = std::exchange(resumed_epoch_loss_, 0.0);
    const bool epoch_done = train_epoch(epoch, loss_sum);
    if (epoch_done) evaluate_epoch(epoch, loss_sum, seconds_since(t_epoch));
    if (stop_ && (!epoch_done || epoch < o_.epochs)) {  // a stop at the very last step just finishes
      result.interrupted = true;
      result.checkpoint = save(epoch_done ? 0.0 : loss_sum);
      message("stopped by a signal after step " + std::to_string(step_) + "; continue with --resume auto");
      return result;
    }
    if (epoch < o_.epochs) save(0.0);
  }
  {
    at::NoGradGuard no_grad;  // the report is of the best epoch's weights
    model::load_safetensors(*model_, (best_dir_ / "model.safetensors").string());
  }
  result.report = report(result.splits);
  result.report["seconds"] = seconds_since(t_start);
  if (run_.main()) {
    write_file_atomic((out_ / "results.json").string(), result.report.dump(2) + "\n");
    write_file_atomic((best_dir_ / "README.md").string(), model_card(result.report));  // now with test results
    engine::remove_checkpoints(out_.string());                                         // the run is complete
  }
  run_.collectives().barrier();
  return result;
}

bool Finetuning::train_epoch(int64_t epoch, double& epoch_loss) {
  const std::vector<size_t> order = epoch_order(size_t(n_), o_.seed, epoch);
  for (int64_t s = step_ - (epoch - 1) * steps_per_epoch_; s < steps_per_epoch_; ++s) {
    const int64_t first = s * global_batch_;
    // Several ranks: the last batch wraps around to the epoch's start, so every rank gets full ones.
    const int64_t count = run_.world() > 1 ? global_batch_ : std::min(global_batch_, n_ - first);
    engine::StepInput in;
    in.step = step_;
    // Micro-batches of per_device_batch_size; only a single process's last batch can need fewer.
    in.micro_steps = std::min(o_.grad_accum, (count + o_.per_device_batch_size - 1) / o_.per_device_batch_size);
    in.count = double(count);
    in.lr = schedule_.at(step_);
    in.log_step = (step_ + 1) % logging_steps_ == 0 || s == steps_per_epoch_ - 1;
    in.read_back = in.log_step;
    const engine::StepOutput out = run_.step(in, classify_forward(order, first, count));
    ++step_;
    if (in.log_step || out.stop) {
      const engine::StepInterval iv = run_.runner().take_interval(step_);
      epoch_loss += iv.loss_sum;
      log({{"step", step_},
           {"max_steps", schedule_.total},
           {"epoch", double(epoch - 1) + double(s + 1) / double(steps_per_epoch_)},
           {"loss", iv.loss_sum / std::max(1.0, iv.count)},
           {"learning_rate", iv.last_lr},
           {"grad_norm", iv.last_grad_norm},
           {"examples_per_sec", iv.count / std::max(1e-9, iv.seconds)}});
    }
    stop_ = out.stop;
    if (stop_ && s < steps_per_epoch_ - 1) return false;
  }
  return true;
}

// Micro-batch m of this rank: positions [(m·world + rank)·b, +b) of the global batch that starts at
// `first` in the epoch's order (the same split as the MLM loader's, so ranks x accumulation ≡ one
// process with the whole batch).
engine::MicroForward Finetuning::classify_forward(const std::vector<size_t>& order, int64_t first, int64_t count) {
  return [this, &order, first, count](int64_t m) {
    const int64_t b = o_.per_device_batch_size, begin = (m * run_.world() + run_.rank()) * b;
    std::vector<size_t> mine;
    for (int64_t i = begin; i < std::min(count, begin + b); ++i) mine.push_back(order[size_t((first + i) % n_)]);
    if (hooks_.during_forward) hooks_.during_forward(step_);
    const ClassifierBatch batch = make_classifier_batch(data_.train.encoded, mine, classify_options_.pad_id);
    at::Tensor gold = gold_of(mine);
    if (run_.dump().enabled()) {
      const at::Tensor att = batch.attention_mask.defined() ? batch.attention_mask : at::ones_like(batch.input_ids);
      run_.dump().write(step_ + 1, m,
                        {{"input_ids", batch.input_ids},
                         {"token_type_ids", batch.token_type_ids},
                         {"attention_mask", att},
                         {"labels", gold}});
    }
    gold = gold.to(run_.device());
    at::Tensor mask = batch.attention_mask.defined() ? batch.attention_mask.to(run_.device()) : at::Tensor();
    at::Tensor logits = model_->forward(batch.input_ids.to(run_.device()), mask,
                                        batch.token_type_ids.to(run_.device()));
    if (data_.type == ProblemType::Regression) {  // MSE, as transformers' MSELoss on logits.squeeze()
      at::Tensor loss_sum = (logits.to(at::kFloat).squeeze(1) - gold).pow(2).sum();
      return engine::MicroOutput{loss_sum, at::zeros({}, gold.options().dtype(at::kLong))};
    }
    at::Tensor loss_sum = at::cross_entropy_loss(logits.to(at::kFloat), gold, {}, at::Reduction::Sum);
    return engine::MicroOutput{loss_sum, logits.argmax(1).eq(gold).sum()};
  };
}

// The training labels of `examples`: class ids (int64), or regression targets (fp32).
at::Tensor Finetuning::gold_of(const std::vector<size_t>& examples) const {
  const int64_t n = int64_t(examples.size());
  if (data_.type == ProblemType::Regression) {
    at::Tensor gold = at::empty({n}, at::kFloat);
    for (int64_t i = 0; i < n; ++i) gold.data_ptr<float>()[i] = float(data_.train.targets[examples[size_t(i)]]);
    return gold;
  }
  at::Tensor gold = at::empty({n}, at::kLong);
  for (int64_t i = 0; i < n; ++i) gold.data_ptr<int64_t>()[i] = data_.train.labels[examples[size_t(i)]];
  return gold;
}

// The epoch's record: training loss, and on --valid the metrics that pick the best epoch, whose
// model is written to best/ (atomically: best/ is always a complete model).
bool Finetuning::evaluate_epoch(int64_t epoch, double loss_sum, double seconds) {
  const double examples = double(run_.world() > 1 ? steps_per_epoch_ * global_batch_ : n_);
  nlohmann::json record = {
      {"epoch", epoch}, {"step", step_}, {"train_loss", loss_sum / examples}, {"train_seconds", seconds}};
  bool best = !data_.valid;  // without a valid split the last epoch is the result
  if (data_.valid) {
    const SplitEval e = evaluate(*data_.valid);
    const double score = e.score(metric_);
    // The first epoch is the best so far (an MCC may be -1, a correlation NaN).
    best = score > best_score_ || best_epoch_ == 0;
    e.add_flat(record, "valid");
    record.erase("valid_majority_accuracy");
    if (best) best_score_ = std::isnan(score) ? -2.0 : score;
  }
  record["best"] = best;
  if (best) {
    best_epoch_ = epoch;
    if (run_.main())
      model::save_pretrained(best_dir_.string(), *model_, config_, at::kFloat, tok_dir_, model_card(nullptr));
    run_.collectives().barrier();
  }
  history_.push_back(record);
  log(record);
  return best;
}

// results.json: the run, and the best model's metrics on valid and test.
nlohmann::json Finetuning::report(std::vector<SplitReport>& splits) {
  nlohmann::json r;
  r["model"] = o_.model;
  r["tokenizer"] = tok_dir_;
  r["problem_type"] = problem_type_name(data_.type);
  r["labels"] = data_.labels.labels();
  r["train_examples"] = n_;
  if (data_.type == ProblemType::SingleLabel) {
    r["train_label_counts"] = data_.per_class;
    r["majority_label"] = data_.labels.label(data_.majority);
  }
  r["epochs"] = history_;
  r["best_epoch"] = best_epoch_;
  r["metric_for_best"] = data_.valid ? metric_ : "last epoch (no --valid)";
  r["best_dir"] = best_dir_.string();
  r["global_batch"] = global_batch_;
  r["world_size"] = run_.world();
  r["steps"] = step_;
  r["skipped_steps"] = run_.runner().skipped_steps();
  r["truncated_examples"] = data_.truncated();
  r["options"] = o_.to_json();
  for (const auto* split : {&data_.valid, &data_.test}) {
    if (!*split) continue;
    const std::string name = split == &data_.valid ? "valid" : "test";
    const SplitEval e = evaluate(**split);
    splits.push_back(
        {name, int64_t((*split)->examples.size()), e.metrics, e.majority_accuracy, e.regression, e.values});
    r[name] = e.to_json();
    r[name]["examples"] = (*split)->examples.size();
    e.add_flat(r, name);
  }
  return r;
}

}  // namespace

std::string format_finetune_log(const nlohmann::json& r) {
  char buf[512];
  if (r.contains("train_loss")) {  // an epoch record
    std::string line = "epoch " + std::to_string(r.value("epoch", int64_t(0)));
    std::snprintf(buf, sizeof buf, " | train loss %.4f", r["train_loss"].get<double>());
    line += buf;
    auto number = [&](const char* key) { return r[key].is_number() ? r[key].get<double>() : std::nan(""); };
    if (r.contains("valid_accuracy")) {
      std::snprintf(buf, sizeof buf, " | valid accuracy %.4f | macro-F1 %.4f", number("valid_accuracy"),
                    number("valid_macro_f1"));
      line += buf;
    } else if (r.contains("valid_pearson")) {
      std::snprintf(buf, sizeof buf, " | valid Pearson %.4f | Spearman %.4f | MSE %.4f", number("valid_pearson"),
                    number("valid_spearman"), number("valid_mse"));
      line += buf;
    }
    const bool evaluated = r.contains("valid_accuracy") || r.contains("valid_pearson");
    return line + (r.value("best", false) && evaluated ? " | best so far" : "");
  }
  std::snprintf(buf, sizeof buf, "step %lld/%lld | epoch %.2f | loss %.4f | lr %.3g | %.1f examples/s",
                (long long)r.value("step", int64_t(0)), (long long)r.value("max_steps", int64_t(0)),
                r.value("epoch", 0.0), r.value("loss", 0.0), r.value("learning_rate", 0.0),
                r.value("examples_per_sec", 0.0));
  return buf;
}

FinetuneResult run_finetune(const FinetuneOptions& options, const FinetuneHooks& hooks) {
  return Finetuning(options, hooks).run();
}

}  // namespace bertpt::classify
