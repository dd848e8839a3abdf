#include "mlm/pretrain.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "engine/driver.h"
#include "engine/log_window.h"
#include "engine/lr_schedule.h"
#include "engine/resumed_options.h"
#include "engine/training_run.h"
#include "mlm/batch_loader.h"
#include "mlm/evaluate.h"
#include "mlm/mlm_step.h"
#include "mlm/model_source.h"
#include "mlm/phase_data.h"
#include "mlm/pretrain_card.h"
#include "mlm/run_meter.h"
#include "model/architecture.h"
#include "model/checkpoint.h"
#include "model/torch_compat.h"

namespace bertpt::mlm {

namespace fs = std::filesystem;
using engine::Clock;
using engine::seconds_since;

namespace {

// JSON numbers must be finite.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

PretrainOptions validated(const PretrainOptions& o) {
  o.validate();
  return o;
}

// Pre-training as a task of the training driver (engine/driver.h): steps in phases over the prepared
// data, the MLM loss, evaluation every --eval-steps and at the end, checkpoints every --save-steps.
class Pretraining : public engine::TrainingTask {
 public:
  Pretraining(const PretrainOptions& options, const TrainHooks& hooks, engine::TrainingRun& run);
  const TrainResult& result() const { return result_; }

  std::vector<std::string> state_fields() const override { return {"data_position"}; }
  void check_resume(const engine::ResumePoint& from) const override;
  std::string earlier_run() const override { return "checkpoints of a run"; }
  void build(const engine::ResumePoint& from) override;
  int64_t restore(const engine::ResumePoint& from) override;
  engine::StepSettings step_settings() const override;
  void restored(const engine::ResumePoint& from) override;
  nlohmann::json model_config() const override { return nlohmann::json::parse(model_->config().to_json()); }
  void begin() override;
  int64_t total_steps() const override { return o_.max_steps; }
  engine::TaskStep next_step(int64_t step) override;
  void stepped(int64_t step, const engine::StepInput& in, const engine::StepOutput& out) override;
  void log(int64_t step, const engine::StepInterval& interval) override;
  void end_period(int64_t step, bool stopping) override;
  bool saves_after(int64_t step) const override {
    return (o_.save_steps > 0 && step % o_.save_steps == 0) || step == o_.max_steps;
  }
  engine::TaskCheckpoint checkpoint() const override;
  nlohmann::json trainer_state() const override;
  std::string model_card() const override { return pretrain_model_card(o_, card_facts()); }
  void saved(int64_t step, const std::string& path) override;
  void finish(int64_t step, bool stopped) override;

 private:
  void enter_phase(size_t phase);
  void make_batches();
  bool logs_after(int64_t step) const;
  void report_start() const;
  void evaluate();
  PretrainCardFacts card_facts() const;
  void message(const std::string& m) const { run_.message(m); }

  const PretrainOptions o_;
  const TrainHooks& hooks_;
  engine::TrainingRun& run_;  // the process, RUN, the optimizer and the step (engine/training_run.h)
  const PhaseData data_;      // every phase's train split and batch
  size_t phase_ = 0;          // the phase dataset_ belongs to
  std::shared_ptr<const data::Dataset> dataset_, valid_;  // the current phase's
  model::BertConfig config_;
  std::shared_ptr<model::MaskedLanguageModel> model_;
  std::string attention_kernel_;
  std::unique_ptr<BatchLoader> loader_;
  StepBatch batch_;  // the current step's, which its forward reads
  engine::LrSchedule schedule_;
  EvalOptions eval_options_;
  std::string resume_dir_;
  int64_t step_ = 0;
  uint64_t position_ = 0;
  double resumed_elapsed_ = 0, resumed_cost_ = 0, resumed_window_flops_ = 0;  // the checkpoint's
  std::optional<RunMeter> meter_;  // time, FLOPs, MFU and cost (from begin())
  int64_t global_batch_ = 0;
  int64_t logging_steps_ = o_.logging_steps > 0 ? o_.logging_steps : engine::auto_logging_steps(o_.max_steps, 100);
  Clock::time_point started_;
  TrainResult result_;
};

Pretraining::Pretraining(const PretrainOptions& options, const TrainHooks& hooks, engine::TrainingRun& run)
    : o_(options), hooks_(hooks), run_(run), data_(o_) {
  dataset_ = data_.train(0);
}

// A checkpoint of other data, another phase schedule or another global batch is another run's.
void Pretraining::check_resume(const engine::ResumePoint& from) const {
  data_.check_resume(from.state, engine::options_in_state(from.state, from.dir), from.dir, run_.world());
}

void Pretraining::build(const engine::ResumePoint& from) {
  resume_dir_ = from.dir;
  const ModelSource source = resolve_model_source(o_, from.dir, data_.longest());
  config_ = source.config;
  at::manual_seed(o_.seed);  // the initial weights are a function of --seed
  model_ = model::make_masked_lm(config_, /*init_weights=*/from.empty());
  if (!source.weights.empty()) {
    model::LoadReport report = model::load_safetensors(*model_, source.weights, /*allow_missing=*/from.empty());
    if (!report.missing.empty()) {
      message("--init-from: " + std::to_string(report.missing.size()) +
              " tensors not in the checkpoint were freshly initialised (e.g. " + report.missing.front() + ")");
    }
  }
  const model::AttentionKernel attention = model::attention_kernel_named(o_.attention);
  model_->set_attention_kernel(attention);
  attention_kernel_ = model::attention_kernel_name(attention, run_.device().type());
  model_->to(run_.device());
  model_->train();
  run_.attach_model(*model_, engine::AdamWOptions{o_.adam_beta1, o_.adam_beta2, o_.adam_epsilon, o_.weight_decay,
                                                  engine::adamw_kernel_named(o_.optim), o_.optim == "lamb"});
}

// A checkpoint's position, phase and time (checked by check_resume).
int64_t Pretraining::restore(const engine::ResumePoint& from) {
  if (!from.empty()) {
    const JsonFields f(from.state, from.dir + "/trainer_state.json", "",
                       "the checkpoint is corrupt; resume from another");
    step_ = f.i64("step");
    position_ = f.u64("data_position");
    if (data_.phased()) phase_ = size_t(f.u64("phase"));
    resumed_elapsed_ = f.has("elapsed_sec") ? f.number("elapsed_sec") : 0.0;
    resumed_cost_ = f.has("cost_usd") ? f.number("cost_usd") : 0.0;
    message("resuming " + from.dir + " at step " + std::to_string(step_) + " (sample position " +
            std::to_string(position_) + ")");
  }
  return step_;
}

engine::StepSettings Pretraining::step_settings() const {
  return engine::step_settings_of(o_, [seed = o_.seed, rank = run_.rank()](int64_t step, int64_t m) {
    return mlm_dropout_seed(seed, step, rank, m);
  });
}

void Pretraining::restored(const engine::ResumePoint& from) {
  if (!from.empty() && from.state.contains("log_window")) {
    run_.runner().restore_interval(
        engine::log_window_from_json(from.state["log_window"], from.dir, resumed_window_flops_));
  }
}

// After the run log opened: the price and peak, the first phase's batches, the schedule.
void Pretraining::begin() {
  meter_.emplace(o_, config_, run_.device().str(), run_.bf16(), run_.main(), run_.world());
  meter_->resume(resumed_elapsed_, resumed_cost_, resumed_window_flops_);
  enter_phase(data_.phase_at(step_));
  schedule_ = lr_schedule_of(o_);
  if (o_.eval_steps > 0 && !valid_) {
    message("--eval-steps " + std::to_string(o_.eval_steps) + ": " + data_.dir(phase_) +
            " has no valid split, so nothing is evaluated (prepare it with --valid-fraction)");
  }
  started_ = Clock::now();
  report_start();
  result_.start_step = step_;
}

// The dataset, batch and loader of `phase` from step_ on. A phase other than the one the data position
// belongs to starts at the beginning of its own dataset; the sample order within a phase is the
// loader's (mlm/batch_loader.h), so a resumed phase continues exactly.
void Pretraining::enter_phase(size_t phase) {
  if (data_.phased()) {
    if (phase != phase_) position_ = 0;
    phase_ = phase;
    dataset_ = data_.train(phase);
  }
  global_batch_ = data_.global_batch(phase_, run_.world());
  make_batches();
}

void Pretraining::make_batches() {
  LoaderOptions lo;
  lo.per_device_batch = data_.per_device_batch(phase_);
  lo.grad_accum = data_.grad_accum(phase_);
  lo.rank = run_.rank();
  lo.world = run_.world();
  lo.seed = o_.seed;
  lo.start_position = position_;
  lo.masking = masking_for_dataset(*dataset_, o_.mlm_probability, o_.whole_word_mask);
  lo.pin_memory = run_.device().is_cuda();
  lo.max_steps = std::max<int64_t>(0, data_.end_step(phase_) - step_);
  loader_.reset();  // the previous phase's, whose thread ends here
  if (lo.max_steps > 0) loader_ = std::make_unique<BatchLoader>(dataset_, lo);
  valid_ = data_.valid(phase_);
  eval_options_.batch_size = data_.per_device_batch(phase_);
  eval_options_.max_batches = o_.eval_max_batches;
  eval_options_.mlm_probability = o_.mlm_probability;
  eval_options_.whole_word_mask = o_.whole_word_mask;
  eval_options_.bf16 = run_.bf16();
  eval_options_.device = run_.device().str();
}

// Whether a log record is written after optimizer step `step` (1-based count): every --logging-steps,
// at the end, and at the end of each phase (a record never spans two sequence lengths).
bool Pretraining::logs_after(int64_t step) const {
  return step % logging_steps_ == 0 || step == o_.max_steps || (data_.phased() && step == data_.end_step(phase_));
}

void Pretraining::report_start() const {
  if (!run_.main() || !hooks_.on_start) return;
  const double T = double(dataset_->seq_len());
  nlohmann::json s;
  s["config"] = o_.to_json();
  s["model"] = nlohmann::json::parse(config_.to_json());
  s["parameters"] = model::count_parameters(*model_);
  s["dataset"] = dataset_fingerprint(*dataset_);
  s["valid_sequences"] = valid_ ? valid_->size() : 0;
  s["global_batch"] = global_batch_;
  s["per_device_batch"] = data_.per_device_batch(phase_);
  s["grad_accum"] = data_.grad_accum(phase_);
  s["world_size"] = run_.world();
  s["device"] = run_.device().str();
  s["threads"] = at::get_num_threads();
  s["attention_kernel"] = attention_kernel_;
  s["adamw_kernel"] = run_.optimizer().kernel_name();
  s["peak_flops"] = meter_->peak().flops_per_sec;
  s["peak_source"] = meter_->peak().source;
  s["flops_per_sequence"] = meter_->flops().train_flops(1, T, o_.mlm_probability * T);
  s["start_step"] = step_;
  s["resumed_from"] = resume_dir_;
  s["model_source"] = !resume_dir_.empty() ? resume_dir_ : !o_.init_from.empty() ? o_.init_from : o_.model;
  if (data_.phased()) s["phases"] = data_.phases_json(run_.world());
  s["decay_parameters"] = run_.optimizer().decay_names().size();
  s["no_decay_parameters"] = run_.optimizer().no_decay_names().size();
  hooks_.on_start(s);
}

// The next global batch (in the phase the step belongs to) and its MLM loss (mlm/mlm_step.h), after
// the test hook and --dump-batches.
engine::TaskStep Pretraining::next_step(int64_t step) {
  step_ = step;
  if (data_.phase_at(step_) != phase_) {
    enter_phase(data_.phase_at(step_));
    message("phase " + std::to_string(phase_ + 1) + " of " + std::to_string(data_.schedule().phases.size()) +
            " from step " + std::to_string(step_ + 1) + ": " + std::to_string(dataset_->seq_len()) +
            " tokens, global batch " + std::to_string(global_batch_) + ", " + data_.dir(phase_));
  }
  engine::TaskStep next;
  engine::StepInput& in = next.input;
  in.started = Clock::now();
  batch_ = loader_->next();
  in.step = step_;
  in.micro_steps = int64_t(batch_.micro.size());
  in.count = double(batch_.global_num_masked);
  in.lr = schedule_.at(step_);
  in.log_step = logs_after(step_ + 1);
  in.read_back = bool(hooks_.on_step);
  next.forward = mlm_micro_forward(*model_, batch_, run_.device(), [this](int64_t m, const MicroBatch& mb) {
    if (hooks_.during_forward) hooks_.during_forward(step_);
    if (run_.dump().enabled()) {
      const at::Tensor att = mb.attention_mask.defined() ? mb.attention_mask : at::ones_like(mb.input_ids);
      run_.dump().write(step_ + 1, m, {{"input_ids", mb.input_ids}, {"attention_mask", att}, {"labels", mb.labels}});
    }
  });
  return next;
}

void Pretraining::stepped(int64_t step, const engine::StepInput& in, const engine::StepOutput& out) {
  step_ = step;
  position_ += uint64_t(global_batch_);
  meter_->step(seconds_since(in.started), double(global_batch_), double(dataset_->seq_len()), in.count);
  if (hooks_.on_step) {
    StepRecord rec;
    rec.step = step_;
    rec.loss = in.count > 0 ? out.loss_sum / in.count : 0.0;
    rec.accuracy = in.count > 0 ? out.correct / in.count : 0.0;
    rec.learning_rate = in.lr;
    rec.grad_norm = out.grad_norm;
    rec.skipped = !out.finite;
    hooks_.on_step(rec);
  }
}

void Pretraining::log(int64_t step, const engine::StepInterval& iv) {
  nlohmann::json r;
  r["step"] = step;
  r["loss"] = num(iv.count > 0 ? iv.loss_sum / iv.count : std::nan(""));
  r["mlm_accuracy"] = num(iv.count > 0 ? iv.correct / iv.count : 0.0);
  r["learning_rate"] = iv.last_lr;
  r["grad_norm"] = num(iv.last_grad_norm);
  const std::string warning = meter_->fill_record(r, iv, double(global_batch_), double(dataset_->seq_len()),
                                                  o_.max_steps - step);
  r["epoch"] = double(position_) / double(dataset_->size());
  r["skipped_steps"] = run_.runner().skipped_steps();
  r["data_wait_sec"] = loader_->wait_seconds();
  if (data_.phased()) r["phase"] = phase_ + 1, r["seq_len"] = dataset_->seq_len(), r["global_batch"] = global_batch_;
  run_.log(r);
  result_.last_log = r;
  if (!warning.empty()) message(warning);
}

// Every --eval-steps before the last step (the run's end evaluates in finish()).
void Pretraining::end_period(int64_t step, bool stopping) {
  if (o_.eval_steps > 0 && step % o_.eval_steps == 0 && step < o_.max_steps && !stopping) evaluate();
}

void Pretraining::evaluate() {
  if (!valid_) return;
  const EvalResult er = evaluate_mlm(*model_, *valid_, eval_options_, &run_.collectives());
  model_->train();
  nlohmann::json r = {{"step", step_},
                      {"eval_loss", num(er.loss)},
                      {"eval_perplexity", num(er.perplexity)},
                      {"eval_accuracy", num(er.accuracy)},
                      {"eval_sequences", er.sequences},
                      {"eval_masked_tokens", er.masked},
                      {"eval_seconds", er.seconds}};
  if (data_.phased()) r["phase"] = phase_ + 1, r["seq_len"] = dataset_->seq_len();
  run_.log(r);
  result_.last_eval = r;
}

engine::TaskCheckpoint Pretraining::checkpoint() const {
  engine::TaskCheckpoint c;
  c.model = model_.get();
  c.config = model_->config();
  c.config.architectures = {c.config.masked_lm_class()};
  c.tokenizer_dir = dataset_->tokenizer_dir();
  c.keep = o_.save_total_limit;
  return c;
}

// trainer_state.json: what --resume needs to continue exactly (docs/training.md, "Checkpoint format").
nlohmann::json Pretraining::trainer_state() const {
  nlohmann::json s;
  s["data_position"] = position_;  // in the current phase's dataset
  if (data_.phased()) s["phase"] = phase_;
  s["global_batch"] = global_batch_;
  s["world_size"] = run_.world();
  s["elapsed_sec"] = meter_->elapsed();
  s["cost_usd"] = meter_->cost_so_far();
  s["learning_rate"] = schedule_.at(step_);
  s["log_window"] = engine::log_window_json(run_.runner().interval(), meter_->window_flops());
  s["schedule"] = {{"kind", o_.lr_scheduler},
                   {"peak", o_.learning_rate},
                   {"warmup_steps", o_.warmup_steps},
                   {"max_steps", o_.max_steps}};
  if (schedule_.kind == engine::LrScheduleKind::Polynomial) {
    s["schedule"]["lr_end"] = schedule_.lr_end, s["schedule"]["power"] = schedule_.power;
  }
  if (schedule_.kind == engine::LrScheduleKind::WarmupStableDecay) {
    s["schedule"]["decay_steps"] = schedule_.decay_steps, s["schedule"]["decay_type"] = o_.decay_type;
    s["schedule"]["min_lr_ratio"] = schedule_.min_lr_ratio;
  }
  s["rng"] = {{"init_seed", o_.seed},
              {"sampler", "permutation(seed, epoch) at data_position"},
              {"masking", "mask_tokens(seed, epoch, sample_index)"},
              {"dropout", "generator re-seeded with hash(seed, step, rank, micro_step) per micro-step"}};
  s["dataset"] = data_.fingerprint();
  s["kernels"] = {{"attention", attention_kernel_},
                  {"adamw", run_.optimizer().kernel_name()},
                  {"libtorch", torch_compat::torch_version()}};
  return s;
}

// What the model card says at the current step.
PretrainCardFacts Pretraining::card_facts() const {
  PretrainCardFacts f;
  f.config = model_->config();
  f.parameters = model::count_parameters(*model_);
  f.dataset = dataset_.get();
  f.phases = data_.phases_json(run_.world());
  const PhaseData::Seen seen = data_.seen(step_, run_.world());
  f.sequences_seen = seen.sequences, f.tokens_seen = seen.tokens;
  f.step = step_;
  f.global_batch = global_batch_;
  f.per_device_batch = data_.per_device_batch(phase_);
  f.grad_accum = data_.grad_accum(phase_);
  f.world = run_.world();
  f.device = run_.device().str();
  f.elapsed_sec = meter_->elapsed();
  f.cost_usd = meter_->priced() ? meter_->cost_so_far() : -1.0;
  f.last_log = result_.last_log;
  f.last_eval = result_.last_eval;
  return f;
}

void Pretraining::saved(int64_t /*step*/, const std::string& path) {
  message("saved " + path);
  result_.last_checkpoint = path;
}

// The run's end: the held-out evaluation, which the final checkpoint's card then shows.
void Pretraining::finish(int64_t step, bool stopped) {
  result_.interrupted = stopped;
  if (!stopped && result_.start_step < step) {
    evaluate();
    if (run_.main() && !result_.last_checkpoint.empty()) {
      write_file_atomic((fs::path(result_.last_checkpoint) / "README.md").string(), model_card());
    }
  }
  result_.final_step = step;
  result_.skipped_steps = run_.runner().skipped_steps();
  result_.seconds = seconds_since(started_);
}

}  // namespace

TrainResult run_pretraining(const PretrainOptions& options, const TrainHooks& hooks) {
  const PretrainOptions o = validated(options);
  engine::TrainingRun run(o, o.to_json(), hooks);
  Pretraining task(o, hooks, run);
  engine::train(run, task);
  return task.result();
}

}  // namespace bertpt::mlm
