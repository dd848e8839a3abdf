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
#include "classify/finetune_task.h"
#include "classify/sequence_task.h"
#include "classify/token_task.h"
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

// A checkpoint's encoder with a new head, or a random initialisation from a preset; checked against
// the tokenizer and --max-seq-len. `resuming`: the run's own checkpoint is loaded over it next, head
// included, so no head is new.
std::shared_ptr<model::Classifier> make_classifier(const FinetuneOptions& o, const tokenizer::Tokenizer& tok,
                                                   const std::string& tok_dir, const FinetuneTask& task,
                                                   model::BertConfig& config, bool resuming, const Message& message) {
  at::manual_seed(o.seed);
  std::error_code ec;
  std::shared_ptr<model::Classifier> classifier;
  const int64_t num_labels = task.num_labels();
  if (fs::is_directory(o.model, ec)) {
    model::LoadReport report;
    classifier = task.per_token() ? model::load_token_classifier(o.model, num_labels, &config, &report)
                                  : model::load_sequence_classifier(o.model, num_labels, &config, &report);
    if (!report.missing.empty() && !resuming) {
      message("initialised a new classification head (" + std::to_string(report.missing.size()) +
              " tensors not in the checkpoint, e.g. " + report.missing.front() + ")");
    }
  } else {
    config = model::resolve_model_config(o.model);
    // A preset's vocabulary and pad id are the tokenizer's (as train takes the dataset's): RoBERTa counts
    // its positions from the pad id, and the batches are padded with the tokenizer's.
    config.vocab_size = int64_t(tok.vocab_size());
    if (tok.special_ids().pad >= 0) config.pad_token_id = tok.special_ids().pad;
    classifier = task.per_token() ? model::make_token_classifier(config, num_labels)
                                  : model::make_sequence_classifier(config, num_labels);
    message("random initialisation from " + o.model + " (no pre-training)");
  }
  if (config.vocab_size != int64_t(tok.vocab_size())) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) +
                       " but the tokenizer " + tok_dir + " has " + std::to_string(tok.vocab_size()),
                   "fine-tune with the tokenizer the model was pre-trained with");
  }
  // RoBERTa's positions start at pad_token_id + 1: 514 of them hold 512 tokens.
  if (o.max_seq_len > config.max_sequence_length()) {
    throw BadInput("--max-seq-len " + std::to_string(o.max_seq_len) + " exceeds the " +
                   std::to_string(config.max_sequence_length()) + " tokens the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings) + " hold");
  }
  return classifier;
}

// One fine-tuning run: the epoch loop around a task (classify/finetune_task.h) — evaluation per
// epoch, best/, checkpoints and the report — with the optimizer step itself in engine::StepRunner.
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
  // The training examples of step `s` of an epoch in `order` (the global batch, before its split into
  // ranks and micro-batches).
  std::vector<size_t> global_batch(const std::vector<size_t>& order, int64_t s) const;
  engine::MicroForward classify_forward(const std::vector<size_t>& batch);
  bool evaluate_epoch(int64_t epoch, double loss_sum, double seconds);
  void save_best(int64_t epoch);
  nlohmann::json report(std::vector<SplitReport>& splits);
  SplitScores evaluate(const std::string& split) {
    return task_->evaluate(*model_, split, metric_, classify_options_, run_.collectives());
  }
  void log(const nlohmann::json& record) { run_.log(record); }
  void message(const std::string& m) const { run_.message(m); }

  const FinetuneOptions o_;
  const FinetuneHooks& hooks_;
  engine::TrainingRun run_;  // the process, OUT, the optimizer and the step (engine/training_run.h)
  const std::string tok_dir_;
  const tokenizer::Tokenizer tok_;
  const std::unique_ptr<FinetuneTask> task_;
  const std::string metric_;  // --metric-for-best for this task
  model::BertConfig config_;
  std::shared_ptr<model::Classifier> model_;
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
      task_(make_finetune_task(options, tok_)),
      metric_(task_->metric_for_best(options.metric_for_best)) {
  message(task_->data_summary());
  out_ = fs::path(o_.output_dir);
  best_dir_ = out_ / "best";
  // One fine-tuning per OUT directory at a time; taken before an earlier run's files may be removed.
  run_.lock_output_dir();
  resume_dir_ = run_.find_resume_checkpoint();
  run_.claim_output_dir(!resume_dir_.empty(), {"best", "results.json"}, "a fine-tuned model or an unfinished run");
  build_model();
  n_ = task_->train_size();
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
  // Evaluation in fp32 whatever --precision trains in, as predict evaluates: a regression head's outputs
  // rounded to bf16 collapse to a few values (a correlation of equal predictions is NaN).
  classify_options_.bf16 = false;
  classify_options_.pad_id = std::max<int64_t>(0, tok_.special_ids().pad);
}

void Finetuning::build_model() {
  model_ = make_classifier(o_, tok_, tok_dir_, *task_, config_, !resume_dir_.empty(),
                           [this](const std::string& m) { message(m); });
  task_->describe(config_);
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

// What a resumed run must share with the one it continues: everything that defines the result (the
// options but those that may change on resume).
nlohmann::json resume_fingerprint(nlohmann::json options) {
  for (const std::string& key : kMayChangeOnResume) options.erase(key);
  return options;
}

// The optimizer, counters, history and position of the checkpoint (its weights were loaded with the
// model, before the ranks synchronised them).
void Finetuning::restore(const std::string& dir) {
  const nlohmann::json state = engine::read_trainer_state(dir, {"task", "options", "epoch_loss", "history",
                                                                "best_score", "best_epoch", "skipped_steps",
                                                                "consecutive_nonfinite_steps"});
  if (state["task"] != "finetune" || resume_fingerprint(state["options"]) != resume_fingerprint(o_.to_json())) {
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
          {"options", o_.to_json()},  // all of them, as train's "config": a resume keeps those not given
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
  const TaskCard task = task_->card();
  const std::string auto_class = task_->per_token() ? "AutoModelForTokenClassification"
                                                    : "AutoModelForSequenceClassification";
  engine::ModelCard card;
  card.title = task.title + " fine-tuned with bertpt from " + o_.model;
  card.summary = "A " + config_.architectures.front() + " model fine-tuned by bertpt (" + std::string(BERTPT_VERSION) +
                 ") from " + o_.model + " on " + o_.train + ". Labels: " + config_.extra.at("id2label") +
                 ". It loads with `" + auto_class + ".from_pretrained(PATH)`.";
  card.pipeline_tag = task.pipeline_tag;
  card.tags = {config_.model_type, task.pipeline_tag, "bertpt"};
  card.config = config_;
  card.parameters = model::count_parameters(*model_);
  card.data = {{"training examples", engine::card_count(double(n_)) + " (" + o_.train + ")"},
               {"labels", std::to_string(task_->num_labels())},
               {"max sequence length", std::to_string(o_.max_seq_len) + " tokens"}};
  for (const std::string split : {"valid", "test"}) {
    const std::string name = split == "valid" ? "validation examples" : o_.test_name + " examples";
    if (task_->split_size(split) > 0) card.data.push_back({name, engine::card_count(double(task_->split_size(split)))});
  }
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
  for (const std::string split : {"valid", "test"}) {
    if (report.is_object() && report.contains(split + "_" + task.first)) {
      card.results.push_back({split + task.metric_names, metric_text(report[split + "_" + task.first]) + " / " +
                                                             metric_text(report[split + "_" + task.second])});
    }
  }
  if (card.results.size() <= 1 && !history_.empty() && history_.back().contains("valid_" + task.first)) {
    card.results.push_back({"valid " + task.first + " (epoch " + std::to_string(history_.size()) + ")",
                            metric_text(history_.back()["valid_" + task.first])});
  }
  card.example_input = task.example_input;
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
  if (best_epoch_ == 0) {  // every epoch's metric on valid was NaN: the result is the last epoch, as without it
    message("no epoch has a finite valid " + metric_ + " (constant predictions); best/ is the last epoch's model");
    save_best(o_.epochs);
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
    const std::vector<size_t> batch = global_batch(order, s);
    const int64_t count = int64_t(batch.size());
    engine::StepInput in;
    in.step = step_;
    // Micro-batches of per_device_batch_size; only a single process's last batch can need fewer.
    in.micro_steps = std::min(o_.grad_accum, (count + o_.per_device_batch_size - 1) / o_.per_device_batch_size);
    in.count = task_->loss_items(batch);
    in.lr = schedule_.at(step_);
    in.log_step = (step_ + 1) % logging_steps_ == 0 || s == steps_per_epoch_ - 1;
    in.read_back = in.log_step;
    const engine::StepOutput out = run_.step(in, classify_forward(batch));
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

std::vector<size_t> Finetuning::global_batch(const std::vector<size_t>& order, int64_t s) const {
  const int64_t first = s * global_batch_;
  // Several ranks: the last batch wraps around to the epoch's start, so every rank gets full ones.
  const int64_t count = run_.world() > 1 ? global_batch_ : std::min(global_batch_, n_ - first);
  std::vector<size_t> batch(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) batch[size_t(i)] = order[size_t((first + i) % n_)];
  return batch;
}

// Micro-batch m of this rank: positions [(m·world + rank)·b, +b) of the global batch (the same split
// as the MLM loader's, so ranks x accumulation ≡ one process with the whole batch).
engine::MicroForward Finetuning::classify_forward(const std::vector<size_t>& batch) {
  return [this, &batch](int64_t m) {
    const int64_t b = o_.per_device_batch_size, begin = (m * run_.world() + run_.rank()) * b;
    const int64_t end = std::min(int64_t(batch.size()), begin + b);
    const std::vector<size_t> mine(batch.begin() + std::min(begin, end), batch.begin() + end);
    if (hooks_.during_forward) hooks_.during_forward(step_);
    const TrainingBatch t = task_->training_batch(mine, classify_options_.pad_id);
    const ClassifierBatch& in = t.inputs;
    if (run_.dump().enabled()) {
      const at::Tensor att = in.attention_mask.defined() ? in.attention_mask : at::ones_like(in.input_ids);
      run_.dump().write(step_ + 1, m,
                        {{"input_ids", in.input_ids},
                         {"token_type_ids", in.token_type_ids},
                         {"attention_mask", att},
                         {"labels", t.labels}});
    }
    const at::Tensor mask = in.attention_mask.defined() ? in.attention_mask.to(run_.device()) : at::Tensor();
    const at::Tensor logits = model_->forward(in.input_ids.to(run_.device()), mask,
                                              in.token_type_ids.to(run_.device()));
    return task_->loss(logits, t.labels.to(run_.device()));
  };
}

// The epoch's record: training loss, and on --valid the metrics that pick the best epoch, whose
// model is written to best/ (atomically: best/ is always a complete model).
bool Finetuning::evaluate_epoch(int64_t epoch, double loss_sum, double seconds) {
  const std::vector<size_t> order = epoch_order(size_t(n_), o_.seed, epoch);
  double items = 0;  // what the epoch's loss is over (examples, or labelled tokens)
  for (int64_t s = 0; s < steps_per_epoch_; ++s) items += task_->loss_items(global_batch(order, s));
  nlohmann::json record = {
      {"epoch", epoch}, {"step", step_}, {"train_loss", loss_sum / items}, {"train_seconds", seconds}};
  const bool validate = task_->split_size("valid") > 0;
  bool best = !validate;  // without a valid split the last epoch is the result
  if (validate) {
    const SplitScores e = evaluate("valid");
    // An epoch whose metric is NaN (a correlation of constant predictions) is never the best; the first
    // epoch with a finite one is the best so far (an MCC may be -1), then each better one.
    best = !std::isnan(e.score) && (e.score > best_score_ || best_epoch_ == 0);
    for (const auto& [key, value] : e.headline.items()) record["valid_" + key] = value;
    if (best) best_score_ = e.score;
  }
  record["best"] = best;
  if (best) save_best(epoch);
  history_.push_back(record);
  log(record);
  return best;
}

// best/: the model of `epoch` (atomically: best/ is always a complete model).
void Finetuning::save_best(int64_t epoch) {
  best_epoch_ = epoch;
  if (run_.main())
    model::save_pretrained(best_dir_.string(), *model_, config_, at::kFloat, tok_dir_, model_card(nullptr));
  run_.collectives().barrier();
}

// results.json: the run, and the best model's metrics on valid and test.
nlohmann::json Finetuning::report(std::vector<SplitReport>& splits) {
  nlohmann::json r;
  r["model"] = o_.model;
  r["tokenizer"] = tok_dir_;
  r["train_examples"] = n_;
  task_->add_to_report(r);
  r["epochs"] = history_;
  r["best_epoch"] = best_epoch_;
  r["metric_for_best"] = task_->split_size("valid") > 0 ? metric_ : "last epoch (no --valid)";
  r["best_dir"] = best_dir_.string();
  r["global_batch"] = global_batch_;
  r["world_size"] = run_.world();
  r["steps"] = step_;
  r["skipped_steps"] = run_.runner().skipped_steps();
  r["options"] = o_.to_json();
  for (const std::string name : {"valid", "test"}) {
    const int64_t examples = task_->split_size(name);
    if (examples == 0) continue;
    const SplitScores e = evaluate(name);
    splits.push_back({name, examples, e.table});
    r[name] = e.metrics;
    r[name]["examples"] = examples;
    for (const auto& [key, value] : e.headline.items()) r[name + "_" + key] = value;
    for (const auto& [key, value] : e.baseline.items()) r[name + "_" + key] = value;
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
    if (r.contains("valid_f1")) {
      std::snprintf(buf, sizeof buf, " | valid entity F1 %.4f | precision %.4f | recall %.4f | word accuracy %.4f",
                    number("valid_f1"), number("valid_precision"), number("valid_recall"), number("valid_accuracy"));
      line += buf;
    } else if (r.contains("valid_accuracy")) {
      std::snprintf(buf, sizeof buf, " | valid accuracy %.4f | macro-F1 %.4f", number("valid_accuracy"),
                    number("valid_macro_f1"));
      line += buf;
    } else if (r.contains("valid_pearson")) {
      std::snprintf(buf, sizeof buf, " | valid Pearson %.4f | Spearman %.4f | MSE %.4f", number("valid_pearson"),
                    number("valid_spearman"), number("valid_mse"));
      line += buf;
    }
    const bool evaluated = r.contains("valid_accuracy") || r.contains("valid_pearson") || r.contains("valid_f1");
    return line + (r.value("best", false) && evaluated ? " | best so far" : "");
  }
  std::snprintf(buf, sizeof buf, "step %lld/%lld | epoch %.2f | loss %.4f | lr %.3g | %.1f examples/s",
                (long long)r.value("step", int64_t(0)), (long long)r.value("max_steps", int64_t(0)),
                r.value("epoch", 0.0), r.value("loss", 0.0), r.value("learning_rate", 0.0),
                r.value("examples_per_sec", 0.0));
  return buf;
}

std::vector<size_t> eval_shard(size_t n, const engine::Collectives& coll) {
  std::vector<size_t> mine;
  for (size_t i = size_t(coll.rank()); i < n; i += size_t(coll.world_size())) mine.push_back(i);
  return mine;
}

std::unique_ptr<FinetuneTask> make_finetune_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok) {
  const bool tokens = options.task == "token-classification" ||
                      (options.task == "auto" && options.data.format == "conll");
  return tokens ? make_token_task(options, tok) : make_sequence_task(options, tok);
}

FinetuneResult run_finetune(const FinetuneOptions& options, const FinetuneHooks& hooks) {
  return Finetuning(options, hooks).run();
}

}  // namespace bertpt::classify
