#include "classify/finetune.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "classify/classify.h"
#include "classify/finetune_card.h"
#include "classify/finetune_model.h"
#include "classify/finetune_task.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "engine/driver.h"
#include "engine/lr_schedule.h"
#include "engine/model_card.h"
#include "engine/resumed_options.h"
#include "engine/run_checkpoint.h"
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

FinetuneOptions validated(const FinetuneOptions& o) {
  o.validate();
  return o;
}

// Fine-tuning as a task of the training driver (engine/driver.h): epochs of ceil(N / global batch)
// steps around a FinetuneTask (classify/finetune_task.h), evaluation at each epoch's end, best/, a
// checkpoint per epoch and the report. With several ranks the last batch is filled up from the epoch's
// start (as torch's DistributedSampler pads), so every rank has the same number of examples.
class Finetuning : public engine::TrainingTask {
 public:
  Finetuning(const FinetuneOptions& options, const FinetuneHooks& hooks, engine::TrainingRun& run);
  const FinetuneResult& result() const { return result_; }

  std::vector<std::string> state_fields() const override {
    return {"task", "epoch_loss", "history", "best_score", "best_epoch"};
  }
  void check_resume(const engine::ResumePoint& from) const override;
  std::vector<std::string> earlier_outputs() const override { return {"best", "results.json"}; }
  std::string earlier_run() const override { return "a fine-tuned model or an unfinished run"; }
  void build(const engine::ResumePoint& from) override;
  int64_t restore(const engine::ResumePoint& from) override;
  engine::StepSettings step_settings() const override;
  void clear_outputs(bool resuming) override;
  nlohmann::json model_config() const override { return nlohmann::json::parse(config_.to_json()); }
  void begin() override;
  int64_t total_steps() const override { return schedule_.total; }
  engine::TaskStep next_step(int64_t step) override;
  void log(int64_t step, const engine::StepInterval& interval) override;
  void end_period(int64_t step, bool stopping) override;
  bool saves_after(int64_t step) const override { return step % steps_per_epoch_ == 0 && step < schedule_.total; }
  engine::TaskCheckpoint checkpoint() const override { return {model_.get(), config_, tok_dir_, 1}; }
  nlohmann::json trainer_state() const override;
  std::string model_card() const override { return model_card(nullptr); }
  void saved(int64_t /*step*/, const std::string& path) override { result_.checkpoint = path; }
  void finish(int64_t step, bool stopped) override;

 private:
  std::string model_card(const nlohmann::json& report) const;
  // The training examples of step `s` of an epoch in `order` (the global batch, before its split into
  // ranks and micro-batches).
  std::vector<size_t> global_batch(const std::vector<size_t>& order, int64_t s) const;
  engine::MicroForward classify_forward();
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
  engine::TrainingRun& run_;  // the process, OUT, the optimizer and the step (engine/training_run.h)
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
  int64_t order_epoch_ = 0;            // the epoch order_ is of
  std::vector<size_t> order_, batch_;  // the epoch's example order; the current step's global batch
  double epoch_loss_ = 0;              // the training loss of the epoch's steps so far (a resumed one's included)
  Clock::time_point epoch_started_;
  Clock::time_point started_;
  FinetuneResult result_;
};

Finetuning::Finetuning(const FinetuneOptions& options, const FinetuneHooks& hooks, engine::TrainingRun& run)
    : o_(options),
      hooks_(hooks),
      run_(run),
      tok_dir_(resolve_tokenizer_dir(options)),
      tok_(tokenizer::load_tokenizer(tok_dir_)),
      task_(make_finetune_task(options, tok_)),
      metric_(task_->metric_for_best(options.metric_for_best)) {
  message(task_->data_summary());
  out_ = fs::path(o_.output_dir);
  best_dir_ = out_ / "best";
  n_ = task_->train_size();
  global_batch_ = o_.per_device_batch_size * o_.grad_accum * run_.world();
  steps_per_epoch_ = (n_ + global_batch_ - 1) / global_batch_;
  const int64_t total_steps = steps_per_epoch_ * o_.epochs;
  schedule_ = {engine::LrScheduleKind::Linear, o_.learning_rate,
               int64_t(std::ceil(o_.warmup_ratio * double(total_steps))), total_steps};
  logging_steps_ = o_.logging_steps > 0 ? o_.logging_steps : engine::auto_logging_steps(total_steps, 50);
  classify_options_.batch_size = o_.eval_batch_size;
  classify_options_.device = run_.device().str();
  // Evaluation in fp32 whatever --precision trains in, as predict evaluates: a regression head's outputs
  // rounded to bf16 collapse to a few values (a correlation of equal predictions is NaN).
  classify_options_.bf16 = false;
  classify_options_.pad_id = std::max<int64_t>(0, tok_.special_ids().pad);
}

// The checkpoint's encoder and head; resuming, the run's own weights over them.
void Finetuning::build(const engine::ResumePoint& from) {
  model_ = make_classifier(o_, tok_, tok_dir_, *task_, config_, !from.empty(),
                           [this](const std::string& m) { message(m); });
  task_->describe(config_);
  if (!from.empty()) {
    at::NoGradGuard no_grad;
    model::load_safetensors(*model_, (fs::path(from.dir) / "model.safetensors").string());
  }
  model_->to(run_.device());
  model_->train();
  run_.attach_model(*model_, engine::AdamWOptions{0.9, 0.999, 1e-8, o_.weight_decay});
}

engine::StepSettings Finetuning::step_settings() const {
  return engine::step_settings_of(o_, [seed = o_.seed, rank = run_.rank()](int64_t step, int64_t micro) {
    return finetune_dropout_seed(seed, step, rank, micro);
  });
}

// OUT: a new run starts without best/; results.json is written again at the end. An earlier fine-tuned
// model was refused or cleared by the driver's claim of OUT.
void Finetuning::clear_outputs(bool resuming) {
  std::error_code ec;
  if (!resuming) fs::remove_all(best_dir_, ec);
  fs::remove(out_ / "results.json", ec);
}

// What a resumed run must share with the one it continues: everything that defines the result (the
// options but those that may change on resume).
nlohmann::json resume_fingerprint(nlohmann::json options) {
  for (const std::string& key : kMayChangeOnResume) options.erase(key);
  return options;
}

void Finetuning::check_resume(const engine::ResumePoint& from) const {
  if (from.state["task"] != "finetune" ||
      resume_fingerprint(engine::options_in_state(from.state, from.dir)) != resume_fingerprint(o_.to_json())) {
    throw BadInput("cannot resume " + from.dir + ": it is not a checkpoint of a fine-tuning run with these options",
                   "resume with the options of the interrupted run (its run_config.json), or start afresh with "
                   "--overwrite-output-dir");
  }
}

// The history and position of the checkpoint (its weights were loaded with the model, before the
// ranks synchronised them; the driver restores the optimizer).
int64_t Finetuning::restore(const engine::ResumePoint& from) {
  if (from.empty()) return 0;
  // A field of the wrong type names the file and the field (common/json_fields.h).
  const JsonFields f(from.state, from.dir + "/trainer_state.json", "",
                     "the checkpoint is corrupt; resume from another");
  step_ = f.i64("step");
  history_ = f.array("history");
  best_score_ = f.number("best_score");
  best_epoch_ = f.i64("best_epoch");
  epoch_loss_ = f.number("epoch_loss");
  message("resuming " + from.dir + " at step " + std::to_string(step_) + " of " + std::to_string(schedule_.total));
  return step_;
}

nlohmann::json Finetuning::trainer_state() const {
  return {{"task", "finetune"},
          {"epoch_loss", epoch_loss_},
          {"history", history_},
          {"best_score", best_score_},
          {"best_epoch", best_epoch_},
          {"rng", "example order permutation(seed, epoch); dropout hash(seed, step, rank, micro_step)"}};
}

// The card of the fine-tuned model (classify/finetune_card.h) at this point of the run.
std::string Finetuning::model_card(const nlohmann::json& report) const {
  FinetuneCardFacts f;
  f.config = config_;
  f.parameters = model::count_parameters(*model_);
  f.task = task_->card();
  f.per_token = task_->per_token();
  f.train_examples = n_;
  f.num_labels = task_->num_labels();
  f.valid_examples = task_->split_size("valid");
  f.test_examples = task_->split_size("test");
  f.history = history_;
  f.step = step_;
  f.global_batch = global_batch_;
  f.best_epoch = best_epoch_;
  f.device = run_.device().str();
  f.world = run_.world();
  f.libtorch_version = torch_compat::torch_version();
  return finetune_model_card(o_, f, report);
}

void Finetuning::begin() {
  message("training: " + std::to_string(o_.epochs) + " epochs x " + std::to_string(steps_per_epoch_) +
          " steps, global batch " + std::to_string(global_batch_) + " (" + std::to_string(o_.per_device_batch_size) +
          (o_.grad_accum > 1 ? " x " + std::to_string(o_.grad_accum) + " accumulated" : "") + " x " +
          std::to_string(run_.world()) + " ranks), lr " + std::to_string(o_.learning_rate) + ", warmup " +
          std::to_string(schedule_.warmup) + " steps, " + o_.precision + " on " + run_.device().str());
  result_.best_dir = best_dir_.string();
  started_ = epoch_started_ = Clock::now();
}

// The global batch of step `step` in its epoch's example order.
engine::TaskStep Finetuning::next_step(int64_t step) {
  step_ = step;
  const int64_t epoch = step / steps_per_epoch_ + 1, s = step % steps_per_epoch_;
  if (epoch != order_epoch_) order_ = epoch_order(size_t(n_), o_.seed, epoch), order_epoch_ = epoch;
  batch_ = global_batch(order_, s);
  const int64_t count = int64_t(batch_.size());
  engine::TaskStep next;
  engine::StepInput& in = next.input;
  in.step = step_;
  // Micro-batches of per_device_batch_size; only a single process's last batch can need fewer.
  in.micro_steps = std::min(o_.grad_accum, (count + o_.per_device_batch_size - 1) / o_.per_device_batch_size);
  in.count = task_->loss_items(batch_);
  in.lr = schedule_.at(step_);
  in.log_step = (step_ + 1) % logging_steps_ == 0 || s == steps_per_epoch_ - 1;
  in.read_back = in.log_step;
  next.forward = classify_forward();
  return next;
}

void Finetuning::log(int64_t step, const engine::StepInterval& iv) {
  step_ = step;
  const int64_t epoch = (step - 1) / steps_per_epoch_ + 1, s = (step - 1) % steps_per_epoch_;
  epoch_loss_ += iv.loss_sum;
  log({{"step", step},
       {"max_steps", schedule_.total},
       {"epoch", double(epoch - 1) + double(s + 1) / double(steps_per_epoch_)},
       {"loss", iv.loss_sum / std::max(1.0, iv.count)},
       {"learning_rate", iv.last_lr},
       {"grad_norm", iv.last_grad_norm},
       {"examples_per_sec", iv.count / std::max(1e-9, iv.seconds)}});
}

// An epoch's end: its evaluation (also when a signal stops the run after it).
void Finetuning::end_period(int64_t step, bool /*stopping*/) {
  step_ = step;
  if (step % steps_per_epoch_ != 0) return;
  evaluate_epoch(step / steps_per_epoch_, epoch_loss_, seconds_since(epoch_started_));
  epoch_loss_ = 0;
  epoch_started_ = Clock::now();
}

// The run's end: the best epoch's model evaluated on valid and test, results.json, the final card; the
// checkpoints are no longer needed.
void Finetuning::finish(int64_t /*step*/, bool stopped) {
  result_.interrupted = stopped;
  if (stopped) return;
  if (best_epoch_ == 0) {  // every epoch's metric on valid was NaN: the result is the last epoch, as without it
    message("no epoch has a finite valid " + metric_ + " (constant predictions); best/ is the last epoch's model");
    save_best(o_.epochs);
  }
  {
    at::NoGradGuard no_grad;  // the report is of the best epoch's weights
    model::load_safetensors(*model_, (best_dir_ / "model.safetensors").string());
  }
  result_.report = report(result_.splits);
  result_.report["seconds"] = seconds_since(started_);
  if (run_.main()) {
    write_file_atomic((out_ / "results.json").string(), result_.report.dump(2) + "\n");
    write_file_atomic((best_dir_ / "README.md").string(), model_card(result_.report));  // now with test results
    engine::remove_checkpoints(out_.string());                                          // the run is complete
  }
  run_.collectives().barrier();
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
engine::MicroForward Finetuning::classify_forward() {
  return [this, &batch = batch_](int64_t m) {
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

FinetuneResult run_finetune(const FinetuneOptions& options, const FinetuneHooks& hooks) {
  const FinetuneOptions o = validated(options);
  engine::TrainingRun run(o, o.to_json(), hooks);
  Finetuning task(o, hooks, run);
  engine::train(run, task);
  return task.result();
}

}  // namespace bertpt::classify
