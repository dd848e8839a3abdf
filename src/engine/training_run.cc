#include "engine/training_run.h"

#include <filesystem>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "common/warning.h"
#include "engine/device.h"
#include "engine/precision.h"
#include "engine/resumed_options.h"
#include "engine/run_checkpoint.h"
#include "model/masked_lm.h"

namespace bertpt::engine {

namespace fs = std::filesystem;

TrainingRun::TrainingRun(const RunOptions& options, nlohmann::json all_options, const RunHooks& hooks)
    : options_(options),
      all_options_(std::move(all_options)),
      hooks_(hooks),
      coll_(hooks.collectives ? *hooks.collectives : single_),
      main_(coll_.is_main()),
      rank_(coll_.rank()),
      world_(coll_.world_size()),
      device_(setup_runtime(options_.threads, options_.device)),
      bf16_(is_bf16(options_.precision)),
      dump_(options_.dump_batches, coll_.rank()) {}

TrainingRun::~TrainingRun() = default;

void TrainingRun::lock_output_dir() {
  if (main_ && !options_.output_dir.empty()) lock_.emplace(DirLock::inside(options_.output_dir));
}

std::string TrainingRun::find_resume_checkpoint() const {
  const std::string checkpoint = resume_checkpoint(options_.resume, options_.output_dir);
  if (options_.resume != "auto") return checkpoint;
  // A newer checkpoint without DONE is passed over: said once, by the main rank, naming it.
  const auto complete = list_checkpoints(options_.output_dir);
  const int64_t resumed_step = complete.empty() ? -1 : complete.back().first;
  for (const auto& [step, dir] : incomplete_checkpoints(options_.output_dir)) {
    if (main_ && step > resumed_step) {
      warn("--resume auto: skipped " + dir + ": it has no DONE marker (it was being written when the run stopped); " +
           (checkpoint.empty() ? "no complete checkpoint to resume" : "resuming " + checkpoint));
    }
  }
  if (checkpoint.empty())
    message("--resume auto: no complete checkpoint in " + options_.output_dir + ", starting a new run");
  return checkpoint;
}

void TrainingRun::claim_output_dir(bool resuming, const std::vector<std::string>& task_outputs,
                                   const std::string& what) {
  if (resuming || options_.output_dir.empty()) return;
  const fs::path out(options_.output_dir);
  std::error_code ec;
  bool outputs = false;
  for (const std::string& name : task_outputs) outputs = outputs || fs::exists(out / name, ec);
  if (!outputs && !has_any_checkpoint(options_.output_dir)) return;
  // --resume auto that found only incomplete checkpoints (no DONE): nothing to continue, nothing to keep.
  const bool only_incomplete = options_.resume == "auto" && !outputs && list_checkpoints(options_.output_dir).empty();
  if (!options_.overwrite_output_dir && !only_incomplete) {
    throw BadInput(options_.output_dir + " already holds " + what,
                   "pass --resume auto to continue it, --overwrite-output-dir to start afresh, or another "
                   "--output-dir");
  }
  if (!main_) return;
  remove_checkpoints(options_.output_dir);
  fs::remove(out / "metrics.jsonl", ec);
}

void TrainingRun::open_run_log(int64_t start_step, const nlohmann::json& model_config) {
  const bool files = main_ && !options_.output_dir.empty();
  if (files) {
    std::error_code ec;
    fs::create_directories(options_.output_dir, ec);
    if (ec) throw BadInput("cannot create --output-dir " + options_.output_dir + ": " + ec.message());
    write_file_atomic((fs::path(options_.output_dir) / "run_config.json").string(), all_options_.dump(2) + "\n");
    truncate_metrics((fs::path(options_.output_dir) / "metrics.jsonl").string(), start_step);
  }
  coll_.barrier();
  RunLogOptions lo;
  lo.run_dir = options_.output_dir;
  lo.enabled = files;
  lo.report_to = options_.report_to;
  lo.start_step = start_step;
  lo.hyperparameters = all_options_;
  lo.model_config = model_config;
  log_ = std::make_unique<RunLog>(lo);
}

void TrainingRun::attach_model(const torch::nn::Module& model, const AdamWOptions& options) {
  params_ = model.parameters();  // the same tensors, in the order of named_parameter_list
  coll_.attach_parameters(params_);
  optimizer_ = std::make_unique<AdamW>(model::named_parameter_list(model), options);
}

void TrainingRun::start_steps(const StepSettings& settings, const std::string& checkpoint,
                              const nlohmann::json& state) {
  int64_t skipped = 0, consecutive_bad = 0;
  if (!checkpoint.empty()) {
    // A field of the wrong type names the file and the field (common/json_fields.h).
    const JsonFields f(state, checkpoint + "/trainer_state.json", "", "the checkpoint is corrupt; resume from another");
    skipped = f.has("skipped_steps") ? f.i64("skipped_steps") : 0;
    consecutive_bad = f.has("consecutive_nonfinite_steps") ? f.i64("consecutive_nonfinite_steps") : 0;
    optimizer_->load_state(read_optimizer_state(checkpoint), f.i64("optimizer_steps"), checkpoint);
  }
  runner_ = std::make_unique<StepRunner>(
      step_runner_options(settings, device_, bf16_), params_, *optimizer_, coll_,
      [this](const std::string& m) { message(m); }, skipped, consecutive_bad);
}

StepSettings step_settings_of(const RunOptions& o, std::function<uint64_t(int64_t step, int64_t micro)> dropout_seed) {
  return {o.max_grad_norm, o.max_nan_steps, o.per_device_batch_size, std::move(dropout_seed)};
}

StepRunnerOptions step_runner_options(const StepSettings& settings, const at::Device& device, bool bf16) {
  StepRunnerOptions so;
  so.device = device;
  so.bf16 = bf16;
  so.max_grad_norm = settings.max_grad_norm;
  so.max_nan_steps = settings.max_nan_steps;
  so.per_device_batch_size = settings.per_device_batch_size;
  so.dropout_seed = settings.dropout_seed;
  return so;
}

StepOutput TrainingRun::step(StepInput in, const MicroForward& forward) {
  in.stop_requested = hooks_.stop_requested && hooks_.stop_requested();
  in.poison = hooks_.inject_nonfinite && hooks_.inject_nonfinite(in.step);
  return runner_->run(in, forward);
}

void TrainingRun::log(const nlohmann::json& record) {
  if (!main_) return;
  log_->write(record);
  if (hooks_.on_log) hooks_.on_log(record);
}

void TrainingRun::message(const std::string& m) const {
  if (main_ && hooks_.on_message) hooks_.on_message(m);
}

std::string TrainingRun::save_checkpoint(int64_t step, const torch::nn::Module& model, const model::BertConfig& config,
                                         const std::function<nlohmann::json()>& trainer_state,
                                         const std::string& tokenizer_dir,
                                         const std::function<std::string()>& model_card, int64_t keep) {
  runner_->settle(step);  // the checkpoint records the skipped-step counters and the optimizer's step count
  std::string path;
  if (main_) {
    path = engine::save_checkpoint(options_.output_dir, step, model, config, *optimizer_, trainer_state(),
                                   tokenizer_dir, model_card());
    prune_checkpoints(options_.output_dir, keep, path);
  }
  coll_.barrier();
  return path;
}

}  // namespace bertpt::engine
