#include "mlm/pretrain.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "common/atomic_file.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "common/jsonl_log.h"
#include "common/progress.h"
#include "data/dataset.h"
#include "data/phase_schedule.h"
#include "data/verify.h"
#include "engine/adamw.h"
#include "engine/batch_dump.h"
#include "engine/collectives.h"
#include "engine/device.h"
#include "engine/failures.h"
#include "engine/lr_schedule.h"
#include "engine/model_card.h"
#include "engine/precision.h"
#include "engine/run_checkpoint.h"
#include "engine/run_log.h"
#include "engine/step_runner.h"
#include "engine/training_run.h"
#include "mlm/batch_loader.h"
#include "mlm/evaluate.h"
#include "mlm/mlm_step.h"
#include "model/architecture.h"
#include "model/checkpoint.h"
#include "model/torch_compat.h"
#include "perf/cost.h"
#include "perf/flops.h"
#include "tokenizer/hf_files.h"

namespace bertpt::mlm {

namespace fs = std::filesystem;
using engine::Clock;
using engine::seconds_since;

namespace {

bool is_preset_name(const std::string& name) {
  std::error_code ec;
  if (fs::exists(name, ec) || name.find('/') != std::string::npos) return false;
  std::string n = name;
  if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) n.resize(n.size() - 5);
  for (const auto& p : model::preset_names()) {
    if (p == n) return true;
  }
  return false;
}

engine::AdamWKernel parse_optim(const std::string& s) {
  if (s == "adamw_torch_fused") return engine::AdamWKernel::LibTorchFused;
  if (s == "adamw_torch") return engine::AdamWKernel::TensorOps;
  if (s == "adamw_bertpt") return engine::AdamWKernel::Bertpt;
  return engine::AdamWKernel::Auto;
}

model::AttentionKernel parse_attention(const std::string& s) {
  if (s == "fused") return model::AttentionKernel::Fused;
  if (s == "explicit") return model::AttentionKernel::Explicit;
  return model::AttentionKernel::Auto;
}

// What identifies the training data, for refusing a resume on different data.
nlohmann::json dataset_fingerprint(const data::Dataset& d) {
  nlohmann::json f;
  f["seq_len"] = d.seq_len();
  f["vocab_size"] = d.vocab_size();
  f["train_sequences"] = d.size();
  f["vocab_sha256"] = d.manifest().tokenizer.vocab_sha256;
  return f;
}

// JSON numbers must be finite.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

using Message = std::function<void(const std::string&)>;

PretrainOptions validated(const PretrainOptions& o) {
  o.validate();
  return o;
}

// The steps since the last log record, as a checkpoint saves them (trainer_state.json "log_window"):
// a run resumed between two log records then logs the true window, not only its own part of it.
nlohmann::json log_window_json(const engine::StepInterval& iv, double flops) {
  return {{"steps", iv.steps},     {"good_steps", iv.good_steps}, {"loss_sum", iv.loss_sum},
          {"correct", iv.correct}, {"count", iv.count},           {"last_grad_norm", iv.last_grad_norm},
          {"last_lr", iv.last_lr}, {"seconds", iv.seconds},       {"flops", flops}};
}

engine::StepInterval log_window_from_json(const nlohmann::json& j, const std::string& checkpoint, double& flops) {
  const JsonFields f(j, checkpoint + "/trainer_state.json", "log_window");
  engine::StepInterval iv;
  iv.steps = f.i64("steps");
  iv.good_steps = f.i64("good_steps");
  iv.loss_sum = f.number("loss_sum");
  iv.correct = f.number("correct");
  iv.count = f.number("count");
  // A non-finite norm (the window's last step was skipped) is written as null.
  iv.last_grad_norm = f.any("last_grad_norm").is_null() ? std::nan("") : f.number("last_grad_norm");
  iv.last_lr = f.number("last_lr");
  iv.seconds = f.number("seconds");
  flops = f.number("flops");
  return iv;
}

// DATA's train split, checked against the tokenizer it was prepared with; with `verify`, every
// shard of DATA is hashed and scanned first (data/verify.h).
std::shared_ptr<const data::Dataset> open_train_split(const std::string& dir, bool verify) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw BadInput("--data " + dir + " does not exist", "create a dataset with bertpt prepare --out DIR");
  }
  const std::vector<uint32_t> lengths = fs::exists(fs::path(dir) / "manifest.json", ec) ? std::vector<uint32_t>{}
                                                                                        : data::lengths_in(dir);
  if (!lengths.empty()) {
    throw BadInput("--data " + dir + " holds datasets of several lengths (" + data::length_dir_names(lengths) + ")",
                   "train on them in phases with --phase-schedule " + std::to_string(lengths.front()) + ":0.9," +
                       std::to_string(lengths.back()) + ":0.1, or on one with --data " +
                       data::length_dir(dir, lengths.front()));
  }
  if (verify) {
    const data::VerifyResult v = data::verify_dataset(dir);
    if (!v.ok()) {
      throw BadInput("--verify-data: " + std::to_string(v.problems.size()) + " problem(s) in " + dir +
                         ", the first: " + v.problems.front(),
                     "bertpt data verify " + dir + " lists them all; re-run bertpt prepare");
    }
  }
  auto dataset = std::make_shared<const data::Dataset>(dir, "train");
  if (dataset->size() == 0)
    throw BadInput(dir + ": the train split is empty", "prepare more text or a shorter --seq-len");
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(dataset->tokenizer_dir());
  if (uint64_t(tok.vocab_size()) != dataset->vocab_size()) {
    throw BadInput("vocabulary mismatch: the dataset's manifest says vocab_size " +
                       std::to_string(dataset->vocab_size()) + " but its tokenizer (" + dataset->tokenizer_dir() +
                       ") has " + std::to_string(tok.vocab_size()),
                   "the dataset was modified; re-run bertpt prepare");
  }
  return dataset;
}

// DATA's valid split, when it has sequences.
std::shared_ptr<const data::Dataset> open_valid_split(const std::string& dir, const data::Dataset& train) {
  if (train.manifest().valid.sequences > 0) {
    return std::make_shared<const data::Dataset>(dir, "valid");
  }
  return nullptr;
}

// Where a run starts: the checkpoint to resume and its trainer state, or nothing (a fresh run; the
// checkpoints of an earlier run in RUN are deleted when --overwrite-output-dir allows it).
struct Start {
  std::string resume_dir;
  nlohmann::json state;
};

// `fingerprint`: what the run trains on now (a checkpoint of other data is refused).
Start resolve_start(engine::TrainingRun& run, const nlohmann::json& fingerprint) {
  Start start;
  start.resume_dir = run.find_resume_checkpoint();
  if (!start.resume_dir.empty()) {
    start.state = engine::read_trainer_state(start.resume_dir, {"data_position", "config"});
    const nlohmann::json& now = fingerprint;
    if (start.state.contains("dataset") && start.state["dataset"] != now) {
      throw BadInput("cannot resume " + start.resume_dir + " on different data: the checkpoint was trained on " +
                         start.state["dataset"].dump() + ", --data has " + now.dump(),
                     "resume with the run's own --data, or start a new run from the weights with --init-from " +
                         start.resume_dir);
    }
  }
  run.claim_output_dir(!start.resume_dir.empty(), {}, "checkpoints of a run");
  return start;
}

// --init-from DIR's weights file; BadInput when DIR is not a safetensors checkpoint.
std::string init_from_weights(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw BadInput("--init-from " + dir + " does not exist", "pass a Hugging Face checkpoint directory");
  }
  const std::string weights = (fs::path(dir) / "model.safetensors").string();
  if (fs::exists(weights, ec)) return weights;
  if (fs::exists(fs::path(dir) / "pytorch_model.bin", ec)) {
    throw BadInput("--init-from " + dir +
                       " has only pytorch_model.bin: bertpt reads safetensors checkpoints, "
                       "and pytorch_model.bin (a Python pickle) is out of scope",
                   "convert it once in Python: AutoModelForMaskedLM.from_pretrained(dir).save_pretrained(dir, "
                   "safe_serialization=True)");
  }
  throw BadInput("--init-from " + dir + " has no model.safetensors", "pass a Hugging Face checkpoint directory");
}

// The model's configuration — from the checkpoint being resumed or initialised from, else --model —
// and the weights to load, if any; checked against the dataset.
struct ModelSource {
  model::BertConfig config;
  std::string weights;
};

ModelSource resolve_model_source(const PretrainOptions& o, const Start& start, const data::Dataset& dataset) {
  ModelSource src;
  if (!start.resume_dir.empty()) {
    src.config = model::BertConfig::load((fs::path(start.resume_dir) / "config.json").string());
    src.weights = (fs::path(start.resume_dir) / "model.safetensors").string();
  } else if (!o.init_from.empty()) {
    src.weights = init_from_weights(o.init_from);
    src.config = model::BertConfig::load((fs::path(o.init_from) / "config.json").string());
  } else {
    src.config = model::resolve_model_config(o.model);
    // A preset's vocabulary and pad id are the dataset's; a config file of the user's must agree with it.
    if (is_preset_name(o.model)) {
      src.config.vocab_size = int64_t(dataset.vocab_size());
      const int64_t pad = dataset.manifest().special_ids.pad;
      if (pad >= 0) src.config.pad_token_id = pad;
    }
  }
  if (src.config.vocab_size != int64_t(dataset.vocab_size())) {
    throw BadInput(
        "vocabulary mismatch: the model has vocab_size " + std::to_string(src.config.vocab_size) + " but the dataset " +
            o.data + " (its tokenizer) has " + std::to_string(dataset.vocab_size()),
        "train on data prepared with the model's tokenizer, or use a preset (its vocab_size follows the data)");
  }
  if (int64_t(dataset.seq_len()) > src.config.max_sequence_length()) {
    throw BadInput("the dataset's seq_len " + std::to_string(dataset.seq_len()) + " exceeds the model's " +
                       std::to_string(src.config.max_sequence_length()) + " positions (max_position_embeddings " +
                       std::to_string(src.config.max_position_embeddings) + ")",
                   "prepare with a shorter --seq-len, or use a model config with more positions");
  }
  src.config.torch_dtype = "float32";
  src.config.architectures = {src.config.masked_lm_class()};
  return src;
}

// "A BERT", "A ModernBERT", "A RoBERTa", "An XLM-RoBERTa": the model card's name of the family.
std::string family_article(const model::BertConfig& c) {
  if (c.is_modernbert()) return "A ModernBERT";
  if (c.model_type == "roberta") return "A RoBERTa";
  if (c.model_type == "xlm-roberta") return "An XLM-RoBERTa";
  return "A BERT";
}

// $ per hour of the machine: --price-per-hour, or --instance's row of the price table.
double resolve_price(const PretrainOptions& o) {
  if (o.instance.empty()) return o.price_per_hour;
  const auto table = perf::load_price_table(perf::default_price_table_path());
  return perf::find_instance(table, o.instance).price_per_hour;
}

// One pre-training run: the task's side of the engine (batches, the MLM loss, evaluation, the run
// directory), with the optimizer step itself in engine::StepRunner.
class Pretraining {
 public:
  Pretraining(const PretrainOptions& options, const TrainHooks& hooks);
  TrainResult run();

 private:
  void open_datasets();
  nlohmann::json run_fingerprint() const;
  const data::Dataset& longest_dataset() const;
  void build_model(const ModelSource& source);
  void restore(const Start& start);
  void open_run_directory();
  void enter_phase(size_t phase);
  void make_batches();
  // A phase's batch (without --phase-schedule, or where the phase names none: the run's own), and the
  // current phase's end.
  int64_t per_device_batch(size_t phase) const;
  int64_t grad_accum(size_t phase) const;
  int64_t phase_global_batch(size_t phase) const { return per_device_batch(phase) * grad_accum(phase) * run_.world(); }
  int64_t phase_end() const { return phases_.empty() ? o_.max_steps : phases_.phases[phase_].end_step; }
  std::string data_dir() const;
  bool logs_after(int64_t step) const;
  struct Seen {
    double sequences = 0, tokens = 0;
  };
  Seen seen() const;
  nlohmann::json phases_json() const;
  void report_start() const;
  bool train_step();  // false when the run stops after it (a signal)
  engine::MicroForward mlm_forward(const StepBatch& batch);
  void write_log_record(const engine::StepInterval& iv);
  void warn_peak_exceeded() const;
  void evaluate();
  void save();
  nlohmann::json trainer_state() const;
  std::string model_card() const;
  void log(const nlohmann::json& record) { run_.log(record); }
  void message(const std::string& m) const { run_.message(m); }
  double cost_so_far() const { return prior_cost_ + price_ * (elapsed_ - prior_elapsed_) / 3600.0; }

  const PretrainOptions o_;
  const TrainHooks& hooks_;
  engine::TrainingRun run_;     // the process, RUN, the optimizer and the step (engine/training_run.h)
  data::PhaseSchedule phases_;  // empty: one phase on --data
  std::vector<std::shared_ptr<const data::Dataset>> phase_data_;  // the train split of each phase
  size_t phase_ = 0;                                              // the phase dataset_ belongs to
  std::shared_ptr<const data::Dataset> dataset_, valid_;          // the current phase's
  model::BertConfig config_;
  std::shared_ptr<model::MaskedLanguageModel> model_;
  std::string attention_kernel_;
  std::unique_ptr<BatchLoader> loader_;
  engine::LrSchedule schedule_;
  EvalOptions eval_options_;
  std::string resume_dir_;
  int64_t step_ = 0;
  uint64_t position_ = 0;
  double prior_elapsed_ = 0, prior_cost_ = 0, elapsed_ = 0;  // training wall time of the whole run
  double price_ = 0;
  perf::PeakFlops peak_;
  bool peak_exceeded_ = false;  // said once: an MFU above 100% means the peak is too low
  std::optional<perf::BertFlops> flops_;
  double interval_flops_ = 0;
  int64_t global_batch_ = 0;
  int64_t logging_steps_ = o_.logging_steps > 0 ? o_.logging_steps : engine::auto_logging_steps(o_.max_steps, 100);
  std::string last_saved_;
  int64_t last_saved_step_ = -1;
  TrainResult result_;
};

Pretraining::Pretraining(const PretrainOptions& options, const TrainHooks& hooks)
    : o_(validated(options)), hooks_(hooks), run_(engine::run_spec_of(o_), hooks) {
  phases_ = data::parse_phase_schedule(o_.phase_schedule, o_.max_steps);
  open_datasets();
  // One run per RUN directory at a time; taken before resolve_start may delete an earlier run's checkpoints.
  run_.lock_output_dir();
  const Start start = resolve_start(run_, run_fingerprint());
  resume_dir_ = start.resume_dir;
  build_model(resolve_model_source(o_, start, longest_dataset()));
  restore(start);
  open_run_directory();
  price_ = resolve_price(o_);
  if (run_.main()) peak_ = perf::peak_flops(run_.device().str(), run_.bf16(), o_.peak_tflops);
  flops_.emplace(config_);
  enter_phase(phases_.phase_at(step_));
  schedule_ = lr_schedule_of(o_);
  if (o_.eval_steps > 0 && !valid_) {
    message("--eval-steps " + std::to_string(o_.eval_steps) + ": " + data_dir() +
            " has no valid split, so nothing is evaluated (prepare it with --valid-fraction)");
  }
}

// --data's train split, or with --phase-schedule the train split of each phase's DATA/seq-LEN
// (all of one tokenizer).
void Pretraining::open_datasets() {
  if (phases_.empty()) {
    dataset_ = open_train_split(o_.data, o_.verify_data);
    return;
  }
  for (const data::TrainingPhase& p : phases_.phases) {
    const std::string dir = data::length_dir(o_.data, p.seq_len), len = std::to_string(p.seq_len);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw BadInput("--phase-schedule: " + dir + " does not exist (no dataset of " + len + " tokens in --data)",
                     "prepare every length of the schedule in one run: bertpt prepare --seq-len 128,512 --out " +
                         o_.data);
    }
    phase_data_.push_back(open_train_split(dir, o_.verify_data));
    const data::Dataset& d = *phase_data_.back();
    if (d.seq_len() != p.seq_len) {
      throw BadInput(dir + " holds sequences of " + std::to_string(d.seq_len()) + " tokens, not " + len,
                     "re-run bertpt prepare --seq-len with the schedule's lengths");
    }
    if (d.manifest().tokenizer.vocab_sha256 != phase_data_.front()->manifest().tokenizer.vocab_sha256) {
      throw BadInput("--phase-schedule: " + dir + " was prepared with another tokenizer than " +
                         data::length_dir(o_.data, phases_.phases.front().seq_len),
                     "prepare all lengths in one run: bertpt prepare --seq-len 128,512");
    }
  }
  dataset_ = phase_data_.front();
}

// What the run trains on, for refusing a resume on other data: the dataset, or every phase's.
nlohmann::json Pretraining::run_fingerprint() const {
  if (phases_.empty()) return dataset_fingerprint(*dataset_);
  nlohmann::json f = nlohmann::json::array();
  for (const auto& d : phase_data_) f.push_back(dataset_fingerprint(*d));
  return f;
}

// The dataset with the longest sequences: the model's positions must cover it.
const data::Dataset& Pretraining::longest_dataset() const {
  const data::Dataset* longest = dataset_.get();
  for (const auto& d : phase_data_) {
    if (d->seq_len() > longest->seq_len()) longest = d.get();
  }
  return *longest;
}

int64_t Pretraining::per_device_batch(size_t phase) const {
  const int64_t b = phases_.empty() ? 0 : phases_.phases[phase].per_device_batch;
  return b > 0 ? b : o_.per_device_batch_size;
}

int64_t Pretraining::grad_accum(size_t phase) const {
  const int64_t a = phases_.empty() ? 0 : phases_.phases[phase].grad_accum;
  return a > 0 ? a : o_.grad_accum;
}

std::string Pretraining::data_dir() const {
  return phases_.empty() ? o_.data : data::length_dir(o_.data, phases_.phases[phase_].seq_len);
}

// The dataset, batch and loader of `phase` from step_ on. A phase other than the one the data position
// belongs to starts at the beginning of its own dataset; the sample order within a phase is the
// loader's (mlm/batch_loader.h), so a resumed phase continues exactly.
void Pretraining::enter_phase(size_t phase) {
  if (!phases_.empty()) {
    if (phase != phase_) position_ = 0;
    phase_ = phase;
    dataset_ = phase_data_[phase];
  }
  global_batch_ = phase_global_batch(phase_);
  make_batches();
}

// Whether a log record is written after optimizer step `step` (1-based count): every --logging-steps,
// at the end, and at the end of each phase (a record never spans two sequence lengths).
bool Pretraining::logs_after(int64_t step) const {
  return step % logging_steps_ == 0 || step == o_.max_steps || (!phases_.empty() && step == phase_end());
}

// The sequences and tokens trained on so far (every phase's steps × its global batch, × its length).
Pretraining::Seen Pretraining::seen() const {
  Seen seen;
  if (phases_.empty()) {
    seen.sequences = double(step_) * double(global_batch_);
    seen.tokens = seen.sequences * double(dataset_->seq_len());
    return seen;
  }
  for (size_t i = 0; i < phases_.phases.size(); ++i) {
    const data::TrainingPhase& p = phases_.phases[i];
    const double sequences = double(std::clamp<int64_t>(step_ - p.begin_step, 0, p.steps())) *
                             double(phase_global_batch(i));
    seen.sequences += sequences;
    seen.tokens += sequences * double(p.seq_len);
  }
  return seen;
}

// The phases as the run summary and the model card show them (null without --phase-schedule).
nlohmann::json Pretraining::phases_json() const {
  nlohmann::json j;
  for (size_t i = 0; i < phases_.phases.size(); ++i) {
    const data::TrainingPhase& p = phases_.phases[i];
    j.push_back({{"phase", i + 1},
                 {"seq_len", p.seq_len},
                 {"first_step", p.begin_step + 1},
                 {"last_step", p.end_step},
                 {"global_batch", phase_global_batch(i)},
                 {"train_sequences", phase_data_[i]->size()}});
  }
  return j;
}

void Pretraining::build_model(const ModelSource& source) {
  config_ = source.config;
  const bool resuming = !resume_dir_.empty();
  at::manual_seed(o_.seed);  // the initial weights are a function of --seed
  model_ = model::make_masked_lm(config_, /*init_weights=*/!resuming);
  if (!source.weights.empty()) {
    model::LoadReport report = model::load_safetensors(*model_, source.weights, /*allow_missing=*/!resuming);
    if (!report.missing.empty()) {
      message("--init-from: " + std::to_string(report.missing.size()) +
              " tensors not in the checkpoint were freshly initialised (e.g. " + report.missing.front() + ")");
    }
  }
  const model::AttentionKernel attention = parse_attention(o_.attention);
  model_->set_attention_kernel(attention);
  attention_kernel_ = model::attention_kernel_name(attention, run_.device().type());
  model_->to(run_.device());
  model_->train();
  run_.attach_model(*model_, engine::AdamWOptions{o_.adam_beta1, o_.adam_beta2, o_.adam_epsilon, o_.weight_decay,
                                                  parse_optim(o_.optim), o_.optim == "lamb"});
}

// Continues a checkpoint's position and counters; then the step runner, which reads the optimizer and
// carries the non-finite policy's counters on.
void Pretraining::restore(const Start& start) {
  if (!resume_dir_.empty()) {
    const nlohmann::json& state = start.state;
    // A field of the wrong type names the file and the field (common/json_fields.h).
    const JsonFields f(state, resume_dir_ + "/trainer_state.json", "",
                       "the checkpoint is corrupt; resume from another");
    step_ = f.i64("step");
    position_ = f.u64("data_position");
    if (!phases_.empty()) {
      // The phase boundaries are shares of --max-steps: both must be those of the checkpoint's run.
      const JsonFields config = f.object("config");
      if (config.str("phase_schedule") != o_.phase_schedule || config.i64("max_steps") != o_.max_steps) {
        throw BadInput("cannot resume " + resume_dir_ + " with another --phase-schedule or --max-steps: it was " +
                           config.str("phase_schedule") + " over " + std::to_string(config.i64("max_steps")) + " steps",
                       "resume with the run's own --phase-schedule and --max-steps");
      }
      phase_ = size_t(f.u64("phase"));
      if (phase_ >= phases_.phases.size()) f.fail("phase", "is not a phase of --phase-schedule " + o_.phase_schedule);
    }
    // The global batch defines the run; how it is split (per-device batch, accumulation, ranks) may change.
    if (f.has("global_batch") && f.i64("global_batch") != phase_global_batch(phase_)) {
      throw BadInput("cannot resume " + resume_dir_ + " with a global batch of " +
                         std::to_string(phase_global_batch(phase_)) + " sequences (" +
                         std::to_string(per_device_batch(phase_)) + " per device x " +
                         std::to_string(grad_accum(phase_)) + " accumulation x " + std::to_string(run_.world()) +
                         " ranks): the run's is " + std::to_string(f.i64("global_batch")),
                     "split the same global batch over the ranks there are now, or pass --global-batch-size " +
                         std::to_string(f.i64("global_batch")));
    }
    prior_elapsed_ = f.has("elapsed_sec") ? f.number("elapsed_sec") : 0.0;
    prior_cost_ = f.has("cost_usd") ? f.number("cost_usd") : 0.0;
    message("resuming " + resume_dir_ + " at step " + std::to_string(step_) + " (sample position " +
            std::to_string(position_) + ")");
  }
  elapsed_ = prior_elapsed_;
  last_saved_step_ = resume_dir_.empty() ? -1 : step_;
  const engine::StepSettings ss = engine::step_settings_of(
      o_,
      [seed = o_.seed, rank = run_.rank()](int64_t step, int64_t m) { return mlm_dropout_seed(seed, step, rank, m); });
  run_.start_steps(ss, resume_dir_, start.state);
  if (!resume_dir_.empty() && start.state.contains("log_window")) {
    run_.runner().restore_interval(log_window_from_json(start.state["log_window"], resume_dir_, interval_flops_));
  }
}

// RUN: the effective config, and metrics.jsonl without the records past the resumed step.
void Pretraining::open_run_directory() { run_.open_run_log(step_, nlohmann::json::parse(model_->config().to_json())); }

void Pretraining::make_batches() {
  LoaderOptions lo;
  lo.per_device_batch = per_device_batch(phase_);
  lo.grad_accum = grad_accum(phase_);
  lo.rank = run_.rank();
  lo.world = run_.world();
  lo.seed = o_.seed;
  lo.start_position = position_;
  lo.masking = masking_for_dataset(*dataset_, o_.mlm_probability, o_.whole_word_mask);
  lo.pin_memory = run_.device().is_cuda();
  lo.max_steps = std::max<int64_t>(0, phase_end() - step_);
  loader_.reset();  // the previous phase's, whose thread ends here
  if (lo.max_steps > 0) loader_ = std::make_unique<BatchLoader>(dataset_, lo);
  valid_ = open_valid_split(data_dir(), *dataset_);
  eval_options_.batch_size = per_device_batch(phase_);
  eval_options_.max_batches = o_.eval_max_batches;
  eval_options_.mlm_probability = o_.mlm_probability;
  eval_options_.whole_word_mask = o_.whole_word_mask;
  eval_options_.bf16 = run_.bf16();
  eval_options_.device = run_.device().str();
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
  s["per_device_batch"] = per_device_batch(phase_);
  s["grad_accum"] = grad_accum(phase_);
  s["world_size"] = run_.world();
  s["device"] = run_.device().str();
  s["threads"] = at::get_num_threads();
  s["attention_kernel"] = attention_kernel_;
  s["adamw_kernel"] = run_.optimizer().kernel_name();
  s["peak_flops"] = peak_.flops_per_sec;
  s["peak_source"] = peak_.source;
  s["flops_per_sequence"] = flops_->train_flops(1, T, o_.mlm_probability * T);
  s["start_step"] = step_;
  s["resumed_from"] = resume_dir_;
  s["model_source"] = !resume_dir_.empty() ? resume_dir_ : !o_.init_from.empty() ? o_.init_from : o_.model;
  if (!phases_.empty()) s["phases"] = phases_json();
  s["decay_parameters"] = run_.optimizer().decay_names().size();
  s["no_decay_parameters"] = run_.optimizer().no_decay_names().size();
  hooks_.on_start(s);
}

TrainResult Pretraining::run() {
  const auto t_start = Clock::now();
  report_start();
  result_.start_step = step_;
  while (step_ < o_.max_steps) {
    if (!train_step()) break;
  }
  if (!result_.interrupted && step_ >= o_.max_steps) {
    if (last_saved_step_ != step_) save();
    if (result_.start_step < step_) {
      evaluate();
      // The final checkpoint was saved before this evaluation: its card gains the held-out results.
      if (run_.main() && !last_saved_.empty())
        write_file_atomic((fs::path(last_saved_) / "README.md").string(), model_card());
    }
  }
  result_.final_step = step_;
  result_.skipped_steps = run_.runner().skipped_steps();
  result_.seconds = seconds_since(t_start);
  return result_;
}

// The MLM loss of micro-batch m (mlm/mlm_step.h), after the test hook and --dump-batches.
engine::MicroForward Pretraining::mlm_forward(const StepBatch& batch) {
  return mlm_micro_forward(*model_, batch, run_.device(), [this](int64_t m, const MicroBatch& mb) {
    if (hooks_.during_forward) hooks_.during_forward(step_);
    if (run_.dump().enabled()) {
      const at::Tensor att = mb.attention_mask.defined() ? mb.attention_mask : at::ones_like(mb.input_ids);
      run_.dump().write(step_ + 1, m, {{"input_ids", mb.input_ids}, {"attention_mask", att}, {"labels", mb.labels}});
    }
  });
}

bool Pretraining::train_step() {
  if (phases_.phase_at(step_) != phase_) {
    enter_phase(phases_.phase_at(step_));
    message("phase " + std::to_string(phase_ + 1) + " of " + std::to_string(phases_.phases.size()) + " from step " +
            std::to_string(step_ + 1) + ": " + std::to_string(dataset_->seq_len()) + " tokens, global batch " +
            std::to_string(global_batch_) + ", " + data_dir());
  }
  engine::StepInput in;
  in.started = Clock::now();
  const StepBatch batch = loader_->next();
  in.step = step_;
  in.micro_steps = int64_t(batch.micro.size());
  in.count = double(batch.global_num_masked);
  in.lr = schedule_.at(step_);
  in.log_step = logs_after(step_ + 1);
  in.read_back = bool(hooks_.on_step);
  const engine::StepOutput out = run_.step(in, mlm_forward(batch));
  ++step_;
  position_ += uint64_t(global_batch_);
  elapsed_ += seconds_since(in.started);
  interval_flops_ += flops_->train_flops(double(global_batch_), double(dataset_->seq_len()), in.count);
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
  if (logs_after(step_) || out.stop) write_log_record(run_.runner().take_interval(step_));
  if (o_.eval_steps > 0 && step_ % o_.eval_steps == 0 && step_ < o_.max_steps && !out.stop) evaluate();
  if ((o_.save_steps > 0 && step_ % o_.save_steps == 0) || step_ == o_.max_steps || out.stop) save();
  if (out.stop) {
    result_.interrupted = true;
    message("stopped by a signal after step " + std::to_string(step_) + "; continue with --resume auto");
  }
  return !out.stop;
}

void Pretraining::write_log_record(const engine::StepInterval& iv) {
  const double G = double(global_batch_), T = double(dataset_->seq_len());
  const double per_step = iv.seconds / double(std::max<int64_t>(1, iv.steps));
  const double eta = per_step * double(o_.max_steps - step_);
  nlohmann::json r;
  r["step"] = step_;
  r["loss"] = num(iv.count > 0 ? iv.loss_sum / iv.count : std::nan(""));
  r["mlm_accuracy"] = num(iv.count > 0 ? iv.correct / iv.count : 0.0);
  r["learning_rate"] = iv.last_lr;
  r["grad_norm"] = num(iv.last_grad_norm);
  r["tokens_per_sec"] = double(iv.steps) * G * T / iv.seconds;
  r["seq_per_sec"] = double(iv.steps) * G / iv.seconds;
  // interval_flops_ counts the global batch, so the peak is that of all `world` devices.
  r["mfu"] = peak_.flops_per_sec > 0 ? interval_flops_ / iv.seconds / (peak_.flops_per_sec * run_.world()) : 0.0;
  r["step_time_sec"] = per_step;
  r["world_size"] = run_.world();
  r["model_flops_per_sec"] = interval_flops_ / iv.seconds;
  r["elapsed_sec"] = elapsed_;
  r["eta_sec"] = eta;
  r["epoch"] = double(position_) / double(dataset_->size());
  r["skipped_steps"] = run_.runner().skipped_steps();
  r["data_wait_sec"] = loader_->wait_seconds();
  if (!phases_.empty()) r["phase"] = phase_ + 1, r["seq_len"] = dataset_->seq_len(), r["global_batch"] = global_batch_;
  if (price_ > 0) {
    r["cost_usd"] = cost_so_far();
    r["projected_cost_usd"] = cost_so_far() + price_ * eta / 3600.0;
  }
  log(r);
  result_.last_log = r;
  interval_flops_ = 0;
  if (r["mfu"].get<double>() > 1.0 && !std::exchange(peak_exceeded_, true)) warn_peak_exceeded();
}

// An MFU above 100%: the peak is lower than what the run reaches. A CPU's is measured at start-up
// (perf/flops.h), so other work loading the machine then makes it too low.
void Pretraining::warn_peak_exceeded() const {
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f GFLOP/s", peak_.flops_per_sec / 1e9);
  message(o_.peak_tflops > 0 ? "MFU above 100%: --peak-tflops (" + std::string(rate) +
                                   " per device) is below the rate this run reaches; give the device's peak"
                             : "MFU above 100%: the peak it is relative to (" + peak_.source + ", " + rate +
                                   ") was measured while other work loaded the machine; MFU is too high, "
                                   "give the peak with --peak-tflops");
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
  if (!phases_.empty()) r["phase"] = phase_ + 1, r["seq_len"] = dataset_->seq_len();
  log(r);
  result_.last_eval = r;
}

// trainer_state.json: what --resume needs to continue exactly (docs/training.md, "Checkpoint format").
nlohmann::json Pretraining::trainer_state() const {
  nlohmann::json s;
  s["data_position"] = position_;  // in the current phase's dataset
  if (!phases_.empty()) s["phase"] = phase_;
  s["global_batch"] = global_batch_;
  s["world_size"] = run_.world();
  s["elapsed_sec"] = elapsed_;
  s["cost_usd"] = cost_so_far();
  s["skipped_steps"] = run_.runner().skipped_steps();
  s["consecutive_nonfinite_steps"] = run_.runner().consecutive_bad_steps();
  s["learning_rate"] = schedule_.at(step_);
  s["log_window"] = log_window_json(run_.runner().interval(), interval_flops_);
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
  s["dataset"] = run_fingerprint();
  s["config"] = o_.to_json();
  s["kernels"] = {{"attention", attention_kernel_},
                  {"adamw", run_.optimizer().kernel_name()},
                  {"libtorch", torch_compat::torch_version()}};
  return s;
}

// The card of a checkpoint at the current step (engine/model_card.h), from the run's options, dataset
// manifest, counters and last logged metrics.
std::string Pretraining::model_card() const {
  engine::ModelCard card;
  card.title = o_.model + " pre-trained with bertpt (masked language modelling)";
  card.summary = family_article(config_) + " masked language model " +
                 (o_.init_from.empty() ? std::string("trained from scratch") : "continued from " + o_.init_from) +
                 " by bertpt (" + std::string(BERTPT_VERSION) +
                 ") on the dataset below, in the recipe of the Hugging Face guide \"Pre-training BERT with Hugging "
                 "Face Transformers\". It loads with `AutoModelForMaskedLM.from_pretrained(PATH)`.";
  card.pipeline_tag = "fill-mask";
  card.tags = {config_.model_type, "fill-mask", "bertpt"};
  card.config = model_->config();
  card.config.architectures = {config_.masked_lm_class()};
  card.parameters = model::count_parameters(*model_);
  const io::Manifest& m = dataset_->manifest();
  std::string sources;
  for (const auto& src : m.sources) sources += (sources.empty() ? "" : ", ") + src.name;
  card.data = {{"dataset", o_.data + (sources.empty() ? "" : " (from " + sources + ")")},
               {"training sequences", engine::card_count(double(m.train.sequences)) + " × " +
                                          std::to_string(m.seq_len) + " tokens (" + m.packing + " packing)"},
               {"training tokens", engine::card_count(double(m.train.tokens))},
               {"documents", engine::card_count(double(m.train.documents))},
               {"tokenizer", std::string(tokenizer::load_tokenizer(dataset_->tokenizer_dir()).model_type()) + ", " +
                                 engine::card_count(double(m.vocab_size)) + " tokens, vocab sha256 " +
                                 m.tokenizer.vocab_sha256.substr(0, 12)}};
  if (m.valid.sequences > 0) card.data.push_back({"held-out sequences", engine::card_count(double(m.valid.sequences))});
  for (const nlohmann::json& p : phases_json()) {
    card.data.push_back({"phase " + std::to_string(p["phase"].get<int>()),
                         std::to_string(p["seq_len"].get<int>()) + " tokens, steps " +
                             std::to_string(p["first_step"].get<int64_t>()) + "-" +
                             std::to_string(p["last_step"].get<int64_t>()) + ", global batch " +
                             std::to_string(p["global_batch"].get<int64_t>()) + ", " +
                             engine::card_count(double(p["train_sequences"].get<uint64_t>())) + " sequences"});
  }
  const Seen seen = this->seen();
  card.training = {
      {"steps", engine::card_count(double(step_)) + " of " + engine::card_count(double(o_.max_steps))},
      {"global batch", std::to_string(global_batch_) + " sequences (" + std::to_string(per_device_batch(phase_)) +
                           " per device × " + std::to_string(grad_accum(phase_)) + " accumulation × " +
                           std::to_string(run_.world()) + " ranks)"},
      {"sequences / tokens seen", engine::card_count(seen.sequences) + " / " + engine::card_count(seen.tokens)},
      {"epochs", std::to_string(m.train.sequences ? seen.sequences / double(m.train.sequences) : 0.0)},
      {"optimizer", std::string(o_.optim == "lamb" ? "LAMB" : "AdamW") + ", peak lr " +
                        std::to_string(o_.learning_rate) + ", " + o_.lr_scheduler + " schedule, " +
                        std::to_string(o_.warmup_steps) + " warmup steps, weight decay " +
                        std::to_string(o_.weight_decay)},
      {"masking",
       std::to_string(o_.mlm_probability) +
           (o_.whole_word_mask ? " of words, whole (all [MASK])" : " of tokens (80% [MASK], 10% random, 10% kept)")},
      {"precision / device", o_.precision + " / " + run_.device().str() + " × " + std::to_string(run_.world())},
      {"training time", engine::card_duration(elapsed_)},
      {"software", std::string("bertpt ") + BERTPT_VERSION + ", LibTorch " + torch_compat::torch_version()}};
  if (price_ > 0) card.training.push_back({"cost", engine::card_dollars(cost_so_far())});
  auto number = [](const nlohmann::json& j, const char* k) {
    return j.is_object() && j.contains(k) && j[k].is_number();
  };
  if (number(result_.last_log, "loss")) {
    card.results.push_back({"training loss (step " + std::to_string(result_.last_log.value("step", int64_t(0))) + ")",
                            std::to_string(result_.last_log["loss"].get<double>())});
  }
  if (number(result_.last_eval, "eval_loss")) {
    const nlohmann::json& e = result_.last_eval;
    card.results.push_back({"held-out MLM loss / perplexity (step " + std::to_string(e.value("step", int64_t(0))) + ")",
                            std::to_string(e["eval_loss"].get<double>()) + " / " +
                                std::to_string(std::exp(e["eval_loss"].get<double>()))});
    if (number(e, "eval_accuracy")) {
      card.results.push_back({"held-out MLM accuracy", std::to_string(e["eval_accuracy"].get<double>())});
    }
  }
  card.example_input = "The capital of France is [MASK].";
  return engine::render_model_card(card);
}

void Pretraining::save() {
  if (step_ == last_saved_step_) return;
  model::BertConfig config = model_->config();
  config.architectures = {config.masked_lm_class()};
  last_saved_ = run_.save_checkpoint(
      step_, *model_, config, [this] { return trainer_state(); }, dataset_->tokenizer_dir(),
      [this] { return model_card(); }, o_.save_total_limit);
  message("saved " + last_saved_);
  last_saved_step_ = step_;
  result_.last_checkpoint = last_saved_;
}

}  // namespace

std::string format_log_line(const nlohmann::json& r, int64_t max_steps) {
  auto d = [&](const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; };
  char buf[512];
  const int64_t step = r.value("step", int64_t(0));
  // A non-finite value is null in the record (JSON has no inf): an overflowed loss reads "inf", not 0.
  auto fixed = [&](const char* k, int decimals) {
    if (!r.contains(k) || !r[k].is_number()) return std::string("inf");
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, r[k].get<double>());
    return std::string(b);
  };
  if (r.contains("eval_loss")) {
    std::snprintf(buf, sizeof buf, "eval @ step %lld | loss %s | perplexity %s | accuracy %.4f | %lld sequences, %s",
                  (long long)step, fixed("eval_loss", 4).c_str(), fixed("eval_perplexity", 2).c_str(),
                  d("eval_accuracy"), (long long)r.value("eval_sequences", int64_t(0)),
                  Progress::format_duration(d("eval_seconds")).c_str());
    return buf;
  }
  auto human = [](double v) {
    char b[32];
    if (v >= 1e6) std::snprintf(b, sizeof b, "%.2fM", v / 1e6);
    else if (v >= 1e3) std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
    else std::snprintf(b, sizeof b, "%.1f", v);
    return std::string(b);
  };
  std::string line;
  std::snprintf(buf, sizeof buf,
                "step %lld/%lld | loss %.4f | acc %.4f | lr %.3g | gnorm %.3f | %s tok/s | %.2f seq/s | MFU %.1f%%",
                (long long)step, (long long)max_steps, d("loss"), d("mlm_accuracy"), d("learning_rate"), d("grad_norm"),
                human(d("tokens_per_sec")).c_str(), d("seq_per_sec"), 100 * d("mfu"));
  line = buf;
  line += " | " + Progress::format_duration(d("elapsed_sec")) + " elapsed, ETA " +
          Progress::format_duration(d("eta_sec"));
  if (r.contains("cost_usd")) {
    std::snprintf(buf, sizeof buf, " | $%.2f so far, $%.2f projected", d("cost_usd"), d("projected_cost_usd"));
    line += buf;
  }
  if (r.value("skipped_steps", int64_t(0)) > 0)
    line += " | " + std::to_string(r["skipped_steps"].get<int64_t>()) + " skipped";
  if (r.contains("phase")) {
    line += " | phase " + std::to_string(r["phase"].get<int>()) + ", " + std::to_string(r["seq_len"].get<int>()) +
            " tokens";
  }
  return line;
}

TrainResult run_pretraining(const PretrainOptions& options, const TrainHooks& hooks) {
  return Pretraining(options, hooks).run();
}

}  // namespace bertpt::mlm
