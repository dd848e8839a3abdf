#include "train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <sstream>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/jsonl_log.h"
#include "common/progress.h"
#include "data/dataset.h"
#include "model/bert.h"
#include "model/checkpoint.h"
#include "model/torch_compat.h"
#include "perf/cost.h"
#include "tokenizer/hf_files.h"
#include "train/adamw.h"
#include "train/batch_loader.h"
#include "train/collectives.h"
#include "train/device.h"
#include "train/evaluate.h"
#include "train/flops.h"
#include "train/lr_schedule.h"
#include "train/run_checkpoint.h"
#include "train/step_stats.h"

namespace bertpt::train {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

AdamWKernel parse_optim(const std::string& s) {
  if (s == "adamw_torch_fused") return AdamWKernel::LibTorchFused;
  if (s == "adamw_torch") return AdamWKernel::TensorOps;
  if (s == "adamw_bertpt") return AdamWKernel::Bertpt;
  return AdamWKernel::Auto;
}

// The non-finite policy's verdict: `streak` consecutive steps without a finite loss and gradient.
[[noreturn]] void throw_diverged(int64_t streak, int64_t step) {
  throw BadInput("training diverged: the loss or gradient was not finite for " + std::to_string(streak) +
                     " steps in a row (up to step " + std::to_string(step) + ")",
                 "lower --learning-rate, add --warmup-steps, or use --precision fp32; resume from the last checkpoint");
}

model::AttentionKernel parse_attention(const std::string& s) {
  if (s == "fused") return model::AttentionKernel::Fused;
  if (s == "explicit") return model::AttentionKernel::Explicit;
  return model::AttentionKernel::Auto;
}

// What identifies the training data, for refusing a resume on different data.
nlohmann::json dataset_fingerprint(const data::Dataset& d) {
  const auto& m = d.manifest();
  nlohmann::json f;
  f["seq_len"] = d.seq_len();
  f["vocab_size"] = d.vocab_size();
  f["train_sequences"] = d.size();
  f["vocab_sha256"] = m.contains("tokenizer") ? m["tokenizer"].value("vocab_sha256", "") : "";
  return f;
}

// Keeps the records of metrics.jsonl up to `step`: after a resume, the steps logged past the
// checkpoint by the interrupted run are replayed and must not appear twice.
void truncate_metrics(const std::string& path, int64_t step) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  std::istringstream in(read_file(path));
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      auto j = nlohmann::json::parse(line);
      if (j.value("step", int64_t(0)) > step) continue;
    } catch (const nlohmann::json::exception&) {
      continue;  // a line cut by a crash
    }
    kept += line + "\n";
  }
  write_file_atomic(path, kept);
}

// The dropout stream of micro-step `micro` of optimizer step `step` on `rank`: a pure function, so a
// resumed run draws the same dropout masks as an uninterrupted one.
uint64_t dropout_seed(uint64_t seed, int64_t step, int rank, int64_t micro) {
  return mix64(mix64(mix64(seed ^ 0x44524F504F555421ull) ^ uint64_t(step)) ^ (uint64_t(rank) << 32 | uint64_t(micro)));
}

bool is_out_of_memory(const std::string& what) {
  return what.find("out of memory") != std::string::npos || what.find("not enough memory") != std::string::npos;
}

[[noreturn]] void throw_oom(const TrainOptions& o) {
  throw BadInput("out of memory at --per-device-batch-size " + std::to_string(o.per_device_batch_size) + " on " + o.device,
                 "lower --per-device-batch-size and raise --grad-accum by the same factor: the global batch (and the "
                 "result) stays the same");
}

// JSON numbers must be finite.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

std::string format_log_line(const nlohmann::json& r, int64_t max_steps) {
  auto d = [&](const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; };
  char buf[512];
  const int64_t step = r.value("step", int64_t(0));
  if (r.contains("eval_loss")) {
    std::snprintf(buf, sizeof buf, "eval @ step %lld | loss %.4f | perplexity %.2f | accuracy %.4f | %lld sequences, %s",
                  (long long)step, d("eval_loss"), d("eval_perplexity"), d("eval_accuracy"),
                  (long long)r.value("eval_sequences", int64_t(0)), Progress::format_duration(d("eval_seconds")).c_str());
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
  std::snprintf(buf, sizeof buf, "step %lld/%lld | loss %.4f | acc %.4f | lr %.3g | gnorm %.3f | %s tok/s | %.2f seq/s | MFU %.1f%%",
                (long long)step, (long long)max_steps, d("loss"), d("mlm_accuracy"), d("learning_rate"), d("grad_norm"),
                human(d("tokens_per_sec")).c_str(), d("seq_per_sec"), 100 * d("mfu"));
  line = buf;
  line += " | " + Progress::format_duration(d("elapsed_sec")) + " elapsed, ETA " + Progress::format_duration(d("eta_sec"));
  if (r.contains("cost_usd")) {
    std::snprintf(buf, sizeof buf, " | $%.2f so far, $%.2f projected", d("cost_usd"), d("projected_cost_usd"));
    line += buf;
  }
  if (r.value("skipped_steps", int64_t(0)) > 0) line += " | " + std::to_string(r["skipped_steps"].get<int64_t>()) + " skipped";
  return line;
}

TrainResult run_training(const TrainOptions& options, const TrainHooks& hooks) {
  const auto t_start = Clock::now();
  TrainOptions o = options;
  o.validate();
  SingleProcess single;
  Collectives& coll = hooks.collectives ? *hooks.collectives : single;
  const bool main = coll.is_main();
  const int rank = coll.rank(), world = coll.world_size();
  auto message = [&](const std::string& m) {
    if (main && hooks.on_message) hooks.on_message(m);
  };

  setup_cpu_runtime(o.threads);
  const at::Device device(normalize_device(o.device));
  const bool bf16 = o.precision == "bf16";

  // ---- data
  std::error_code ec;
  if (!fs::is_directory(o.data, ec)) {
    throw BadInput("--data " + o.data + " does not exist", "create a dataset with bertpt prepare --out DIR");
  }
  auto dataset = std::make_shared<const data::Dataset>(o.data, "train");
  if (dataset->size() == 0) throw BadInput(o.data + ": the train split is empty", "prepare more text or a shorter --seq-len");
  {
    tokenizer::Tokenizer tok = tokenizer::load_tokenizer(dataset->tokenizer_dir());
    if (uint64_t(tok.vocab_size()) != dataset->vocab_size()) {
      throw BadInput("vocabulary mismatch: the dataset's manifest says vocab_size " + std::to_string(dataset->vocab_size()) +
                         " but its tokenizer (" + dataset->tokenizer_dir() + ") has " + std::to_string(tok.vocab_size()),
                     "the dataset was modified; re-run bertpt prepare");
    }
  }
  const int64_t T = dataset->seq_len();

  // ---- where to start: --resume, --init-from, or fresh
  std::string resume_dir;
  if (o.resume == "auto") {
    auto all = list_checkpoints(o.output_dir);
    if (!all.empty()) resume_dir = all.back().second;
    else message("--resume auto: no complete checkpoint in " + o.output_dir + ", starting a new run");
  } else if (!o.resume.empty()) {
    resume_dir = o.resume;
  }
  nlohmann::json state;
  if (!resume_dir.empty()) {
    state = read_trainer_state(resume_dir);
    nlohmann::json now = dataset_fingerprint(*dataset);
    if (state.contains("dataset") && state["dataset"] != now) {
      throw BadInput("cannot resume " + resume_dir + " on different data: the checkpoint was trained on " +
                         state["dataset"].dump() + ", --data has " + now.dump(),
                     "resume with the run's own --data, or start a new run from the weights with --init-from " + resume_dir);
    }
  } else if (has_any_checkpoint(o.output_dir)) {
    if (!o.overwrite_output_dir) {
      throw BadInput(o.output_dir + " already holds checkpoints of a run",
                     "pass --resume auto to continue it, --overwrite-output-dir to start afresh, or another --output-dir");
    }
    if (main) {
      for (const auto& e : fs::directory_iterator(o.output_dir)) {
        if (e.path().filename().string().rfind("checkpoint-", 0) == 0) fs::remove_all(e.path(), ec);
      }
      fs::remove(fs::path(o.output_dir) / "metrics.jsonl", ec);
    }
  }

  // ---- model config: from the checkpoint being resumed / initialised from, else --model
  model::BertConfig config;
  std::string weights;  // safetensors to load, if any
  if (!resume_dir.empty()) {
    config = model::BertConfig::load((fs::path(resume_dir) / "config.json").string());
    weights = (fs::path(resume_dir) / "model.safetensors").string();
  } else if (!o.init_from.empty()) {
    if (!fs::is_directory(o.init_from, ec)) {
      throw BadInput("--init-from " + o.init_from + " does not exist", "pass a Hugging Face checkpoint directory");
    }
    weights = (fs::path(o.init_from) / "model.safetensors").string();
    if (!fs::exists(weights, ec)) {
      if (fs::exists(fs::path(o.init_from) / "pytorch_model.bin", ec)) {
        throw BadInput("--init-from " + o.init_from + " has only pytorch_model.bin: bertpt reads safetensors checkpoints, "
                       "and pytorch_model.bin (a Python pickle) is out of scope",
                       "convert it once in Python: BertForMaskedLM.from_pretrained(dir).save_pretrained(dir, safe_serialization=True)");
      }
      throw BadInput("--init-from " + o.init_from + " has no model.safetensors", "pass a Hugging Face checkpoint directory");
    }
    config = model::BertConfig::load((fs::path(o.init_from) / "config.json").string());
  } else {
    config = model::resolve_model_config(o.model);
    // A preset's vocabulary is the dataset's; a config file of the user's must agree with it.
    if (is_preset_name(o.model)) config.vocab_size = int64_t(dataset->vocab_size());
  }
  if (config.vocab_size != int64_t(dataset->vocab_size())) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) + " but the dataset " +
                       o.data + " (its tokenizer) has " + std::to_string(dataset->vocab_size()),
                   "train on data prepared with the model's tokenizer, or use a preset (its vocab_size follows the data)");
  }
  if (T > config.max_position_embeddings) {
    throw BadInput("the dataset's seq_len " + std::to_string(T) + " exceeds the model's max_position_embeddings " +
                       std::to_string(config.max_position_embeddings),
                   "prepare with a shorter --seq-len, or use a model config with more positions");
  }
  config.torch_dtype = "float32";
  config.architectures = {"BertForMaskedLM"};

  // ---- model and optimizer
  at::manual_seed(o.seed);  // the initial weights are a function of --seed
  model::BertForMaskedLM model(config, /*init_weights=*/resume_dir.empty());
  if (!weights.empty()) {
    model::LoadReport report = model::load_safetensors(*model, weights, /*allow_missing=*/resume_dir.empty());
    if (!report.missing.empty()) {
      message("--init-from: " + std::to_string(report.missing.size()) + " tensors not in the checkpoint were freshly initialised (e.g. " +
              report.missing.front() + ")");
    }
  }
  model->bert->set_attention_kernel(parse_attention(o.attention));
  const std::string attention_kernel = model::attention_kernel_name(parse_attention(o.attention), device.type());
  model->to(device);
  model->train();
  const std::vector<std::pair<std::string, at::Tensor>> named = model::named_parameter_list(*model);
  const std::vector<at::Tensor> params = model->parameters();  // the same tensors, in the same order
  coll.attach_parameters(params);
  AdamW optimizer(named, AdamWOptions{o.adam_beta1, o.adam_beta2, o.adam_epsilon, o.weight_decay, parse_optim(o.optim)});

  int64_t step = 0;
  uint64_t position = 0;
  double prior_elapsed = 0, prior_cost = 0;
  int64_t skipped = 0, consecutive_bad = 0;
  if (!resume_dir.empty()) {
    step = state["step"].get<int64_t>();
    position = state["data_position"].get<uint64_t>();
    prior_elapsed = state.value("elapsed_sec", 0.0);
    prior_cost = state.value("cost_usd", 0.0);
    skipped = state.value("skipped_steps", int64_t(0));
    consecutive_bad = state.value("consecutive_nonfinite_steps", int64_t(0));
    optimizer.load_state(read_optimizer_state(resume_dir), state["optimizer_steps"].get<int64_t>(), resume_dir);
    message("resuming " + resume_dir + " at step " + std::to_string(step) + " (sample position " + std::to_string(position) + ")");
  }

  // ---- run directory: effective config, metrics log
  const std::string metrics_path = (fs::path(o.output_dir) / "metrics.jsonl").string();
  if (main) {
    fs::create_directories(o.output_dir, ec);
    if (ec) throw BadInput("cannot create --output-dir " + o.output_dir + ": " + ec.message());
    write_file_atomic((fs::path(o.output_dir) / "run_config.json").string(), o.to_json().dump(2) + "\n");
    truncate_metrics(metrics_path, step);
  }
  coll.barrier();
  JsonlLog metrics(metrics_path, main);

  // ---- cost and MFU references
  double price = o.price_per_hour;
  std::string price_source = price > 0 ? "--price-per-hour" : "";
  if (!o.instance.empty()) {
    auto table = perf::load_price_table(perf::default_price_table_path());
    const auto& inst = perf::find_instance(table, o.instance);
    price = inst.price_per_hour;
    price_source = inst.name + " ($" + std::to_string(inst.price_per_hour) + "/h)";
  }
  PeakFlops peak;
  if (main) peak = peak_flops(device.str(), bf16, o.peak_tflops);
  const BertFlops flops(config);
  const int64_t G = global_batch_size(o, world);

  // ---- batches
  LoaderOptions lo;
  lo.per_device_batch = o.per_device_batch_size;
  lo.grad_accum = o.grad_accum;
  lo.rank = rank;
  lo.world = world;
  lo.seed = o.seed;
  lo.start_position = position;
  lo.masking = masking_for_dataset(*dataset, o.mlm_probability);
  lo.pin_memory = device.is_cuda();
  lo.max_steps = std::max<int64_t>(0, o.max_steps - step);
  std::unique_ptr<BatchLoader> loader;
  if (lo.max_steps > 0) loader = std::make_unique<BatchLoader>(dataset, lo);

  std::shared_ptr<const data::Dataset> valid;
  {
    const auto& splits = dataset->manifest()["splits"];
    if (splits.contains("valid") && splits["valid"].value("sequences", uint64_t(0)) > 0) {
      valid = std::make_shared<const data::Dataset>(o.data, "valid");
    }
  }
  EvalOptions eo;
  eo.batch_size = o.per_device_batch_size;
  eo.max_batches = o.eval_max_batches;
  eo.mlm_probability = o.mlm_probability;
  eo.bf16 = bf16;
  eo.device = device.str();

  if (main && hooks.on_start) {
    nlohmann::json s;
    s["config"] = o.to_json();
    s["model"] = nlohmann::json::parse(config.to_json());
    s["parameters"] = model::count_parameters(*model);
    s["dataset"] = dataset_fingerprint(*dataset);
    s["valid_sequences"] = valid ? valid->size() : 0;
    s["global_batch"] = G;
    s["world_size"] = world;
    s["device"] = device.str();
    s["threads"] = at::get_num_threads();
    s["attention_kernel"] = attention_kernel;
    s["adamw_kernel"] = optimizer.kernel_name();
    s["peak_flops"] = peak.flops_per_sec;
    s["peak_source"] = peak.source;
    s["flops_per_sequence"] = flops.train_flops(1, double(T), o.mlm_probability * double(T));
    s["start_step"] = step;
    s["resumed_from"] = resume_dir;
    s["decay_parameters"] = optimizer.decay_names().size();
    s["no_decay_parameters"] = optimizer.no_decay_names().size();
    hooks.on_start(s);
  }

  const LrSchedule schedule{parse_lr_schedule(o.lr_scheduler), o.learning_rate, o.warmup_steps, o.max_steps};
  TrainResult result;
  result.start_step = step;
  double elapsed = prior_elapsed;  // training wall time of the whole run, all segments
  std::string last_saved;
  int64_t last_saved_step = resume_dir.empty() ? -1 : step;

  // Interval accumulators for the next log record.
  struct Interval {
    double loss_sum = 0, correct = 0, masked = 0, flops = 0, seconds = 0;
    int64_t steps = 0, good_steps = 0;
  } iv;
  double last_grad_norm = 0, last_lr = 0;

  // With an optimizer that skips a non-finite update on the device (LibTorch's fused AdamW, the
  // default on CUDA), a step reads nothing back: loss, accuracy, norm and the non-finite policy's
  // counters stay on the device until the next logging step (DeviceStepStats). Otherwise the host
  // reads them every step and skips the update itself.
  const bool device_step = optimizer.skips_on_device();
  DeviceStepStats device_stats(device, consecutive_bad);
  // Reads the device-side counters into the interval and applies the non-finite policy for them.
  auto settle_device_stats = [&](int64_t through_step) {
    const DeviceStepStats::Totals t = device_stats.read_and_reset();
    const int64_t bad = t.steps - t.good_steps;
    optimizer.uncount_skipped(bad);
    skipped += bad;
    consecutive_bad = t.streak;
    iv.good_steps += t.good_steps;
    iv.loss_sum += t.loss_sum;
    iv.correct += t.correct;
    iv.masked += t.masked;
    last_grad_norm = t.last_norm;
    if (bad > 0) {
      message(std::to_string(bad) + " of the " + std::to_string(t.steps) + " steps up to step " +
              std::to_string(through_step) + " had a non-finite loss or gradient; their updates were skipped");
    }
    if (t.worst_streak >= o.max_nan_steps) throw_diverged(t.worst_streak, through_step);
    return t;
  };

  auto run_eval = [&]() {
    if (!valid) return;
    EvalResult er = evaluate_mlm(*model, *valid, eo, &coll);
    model->train();
    nlohmann::json r = {{"step", step},
                        {"eval_loss", num(er.loss)},
                        {"eval_perplexity", num(er.perplexity)},
                        {"eval_accuracy", num(er.accuracy)},
                        {"eval_sequences", er.sequences},
                        {"eval_masked_tokens", er.masked},
                        {"eval_seconds", er.seconds}};
    if (main) {
      metrics.write(r);
      if (hooks.on_log) hooks.on_log(r);
    }
    result.last_eval = r;
  };

  auto save = [&]() {
    if (step == last_saved_step) return;
    // The checkpoint records the skipped-step counters and the optimizer's step count: settled first.
    if (device_step) settle_device_stats(step);
    if (main) {
      nlohmann::json s;
      s["data_position"] = position;
      s["global_batch"] = G;
      s["world_size"] = world;
      s["elapsed_sec"] = elapsed;
      s["cost_usd"] = prior_cost + price * (elapsed - prior_elapsed) / 3600.0;
      s["skipped_steps"] = skipped;
      s["consecutive_nonfinite_steps"] = consecutive_bad;
      s["learning_rate"] = schedule.at(step);
      s["schedule"] = {{"kind", o.lr_scheduler}, {"peak", o.learning_rate}, {"warmup_steps", o.warmup_steps},
                       {"max_steps", o.max_steps}};
      s["rng"] = {{"init_seed", o.seed},
                  {"sampler", "permutation(seed, epoch) at data_position"},
                  {"masking", "mask_tokens(seed, epoch, sample_index)"},
                  {"dropout", "generator re-seeded with hash(seed, step, rank, micro_step) per micro-step"}};
      s["dataset"] = dataset_fingerprint(*dataset);
      s["config"] = o.to_json();
      s["kernels"] = {{"attention", attention_kernel},
                      {"adamw", optimizer.kernel_name()},
                      {"libtorch", torch_compat::torch_version()}};
      last_saved = save_checkpoint(o.output_dir, step, model, optimizer, s, dataset->tokenizer_dir());
      prune_checkpoints(o.output_dir, o.save_total_limit, last_saved);
      message("saved " + last_saved);
    }
    coll.barrier();
    last_saved_step = step;
    result.last_checkpoint = last_saved;
  };

  while (step < o.max_steps) {
    const auto t_step = Clock::now();
    StepBatch batch = loader->next();
    const double global_masked = double(batch.global_num_masked);
    const double lr = schedule.at(step);
    const bool poison = hooks.inject_nonfinite && hooks.inject_nonfinite(step);

    double loss_sum = 0, correct = 0, grad_norm = 0;
    try {
      optimizer.zero_grad();
      at::Tensor loss_acc = at::zeros({}, at::TensorOptions().device(device).dtype(at::kFloat));
      at::Tensor correct_acc = at::zeros({}, at::TensorOptions().device(device).dtype(at::kLong));
      const int64_t M = int64_t(batch.micro.size());
      for (int64_t m = 0; m < M; ++m) {
        const MicroBatch& mb = batch.micro[size_t(m)];
        at::manual_seed(dropout_seed(o.seed, step, rank, m));
        at::Tensor ids = mb.input_ids.to(device, /*non_blocking=*/true);      // [b, T]
        at::Tensor labels = mb.labels.to(device, /*non_blocking=*/true);      // [b, T]
        at::Tensor att = mb.attention_mask.defined() ? mb.attention_mask.to(device, true) : at::Tensor();
        at::Tensor positions = mb.masked_positions.to(device, /*non_blocking=*/true);  // [M]
        at::Tensor loss;  // [] this micro-batch's share of the global mean loss
        model::MlmOutput out;
        {
          torch_compat::AutocastGuard autocast(device.type(), at::kBFloat16, bf16);
          out = model->forward(ids, att, {}, labels, model::MlmHead::Sparse, positions);
          loss = out.loss_sum * (1.0 / std::max(1.0, global_masked));
        }
        if (poison) loss = loss * std::numeric_limits<double>::quiet_NaN();
        coll.begin_backward(m == M - 1);
        loss.backward();
        loss_acc += poison ? loss.detach() : out.loss_sum.detach();
        correct_acc += out.num_correct;
      }
      coll.finish_gradients();
      at::Tensor norm = global_grad_norm(params);  // [] over the summed gradients: the same on every rank
      const bool log_now = (step + 1) % o.logging_steps == 0 || step + 1 == o.max_steps;
      bool stop = false, finite = true;
      if (device_step) {
        // Nothing read back: the update is skipped on the device when loss or norm is not finite.
        std::vector<at::Tensor> sums = {loss_acc.to(at::kDouble), correct_acc.to(at::kDouble)};
        coll.sum_on_device(sums);
        at::Tensor ok = at::isfinite(sums[0]).logical_and(at::isfinite(norm));  // [] bool
        clip_grads(params, norm, o.max_grad_norm);
        optimizer.step(lr, ok.logical_not().to(at::kFloat));
        device_stats.add(ok, sums[0], sums[1], global_masked, norm);
        // One rank honours a signal at once; several must agree, which they do at logging steps.
        const bool stop_here = hooks.stop_requested && hooks.stop_requested();
        if (world == 1) {
          stop = stop_here;
        } else if (log_now) {
          std::vector<double> flag = {stop_here ? 1.0 : 0.0};
          coll.sum(flag);
          stop = flag[0] > 0;
        }
        if (hooks.on_step || log_now || stop) {
          const DeviceStepStats::Totals t = settle_device_stats(step + 1);
          if (t.steps == 1) {  // this step's own values (every step when on_step asks for them)
            finite = t.good_steps == 1;
            loss_sum = finite ? t.loss_sum : std::nan("");
            correct = t.correct;
          }
          grad_norm = t.last_norm;
        }
      } else {
        // The one host synchronisation of the step: loss, accuracy, norm.
        at::Tensor host = at::stack({loss_acc.to(at::kDouble), correct_acc.to(at::kDouble), norm.to(at::kDouble)}).cpu();
        const double* h = host.data_ptr<double>();
        grad_norm = h[2];
        std::vector<double> sums = {h[0], h[1], hooks.stop_requested && hooks.stop_requested() ? 1.0 : 0.0};
        coll.sum(sums);
        loss_sum = sums[0];
        correct = sums[1];
        stop = sums[2] > 0;
        finite = std::isfinite(loss_sum) && std::isfinite(grad_norm);
        if (finite) {
          consecutive_bad = 0;
          clip_grads(params, norm, o.max_grad_norm);
          optimizer.step(lr);
        } else {
          ++skipped;
          ++consecutive_bad;
          optimizer.zero_grad();
          message("step " + std::to_string(step + 1) + ": non-finite " + (std::isfinite(loss_sum) ? "gradient" : "loss") +
                  ", update skipped (" + std::to_string(consecutive_bad) + " in a row)");
          if (consecutive_bad >= o.max_nan_steps) throw_diverged(consecutive_bad, step + 1);
        }
      }
      ++step;
      position += uint64_t(G);
      const double step_seconds = seconds_since(t_step);
      elapsed += step_seconds;

      StepRecord rec;
      rec.step = step;
      rec.loss = global_masked > 0 ? loss_sum / global_masked : 0.0;
      rec.accuracy = global_masked > 0 ? correct / global_masked : 0.0;
      rec.learning_rate = lr;
      rec.grad_norm = grad_norm;
      rec.skipped = !finite;
      if (hooks.on_step) hooks.on_step(rec);

      iv.steps += 1;
      iv.seconds += step_seconds;
      iv.flops += flops.train_flops(double(G), double(T), global_masked);
      if (finite && !device_step) {  // the device path settles these from DeviceStepStats
        iv.good_steps += 1;
        iv.loss_sum += loss_sum;
        iv.correct += correct;
        iv.masked += global_masked;
      }
      last_grad_norm = grad_norm;
      last_lr = lr;

      if (step % o.logging_steps == 0 || step == o.max_steps || stop) {
        const double per_step = iv.seconds / double(std::max<int64_t>(1, iv.steps));
        const double eta = per_step * double(o.max_steps - step);
        nlohmann::json r;
        r["step"] = step;
        r["loss"] = num(iv.masked > 0 ? iv.loss_sum / iv.masked : std::nan(""));
        r["mlm_accuracy"] = num(iv.masked > 0 ? iv.correct / iv.masked : 0.0);
        r["learning_rate"] = last_lr;
        r["grad_norm"] = num(last_grad_norm);
        r["tokens_per_sec"] = double(iv.steps * G * T) / iv.seconds;
        r["seq_per_sec"] = double(iv.steps * G) / iv.seconds;
        // iv.flops counts the global batch, so the peak is that of all `world` devices.
        r["mfu"] = peak.flops_per_sec > 0 ? iv.flops / iv.seconds / (peak.flops_per_sec * world) : 0.0;
        r["step_time_sec"] = per_step;
        r["world_size"] = world;
        r["model_flops_per_sec"] = iv.flops / iv.seconds;
        r["elapsed_sec"] = elapsed;
        r["eta_sec"] = eta;
        r["epoch"] = double(position) / double(dataset->size());
        r["skipped_steps"] = skipped;
        r["data_wait_sec"] = loader->wait_seconds();
        if (price > 0) {
          const double cost = prior_cost + price * (elapsed - prior_elapsed) / 3600.0;
          r["cost_usd"] = cost;
          r["projected_cost_usd"] = cost + price * eta / 3600.0;
        }
        if (main) {
          metrics.write(r);
          if (hooks.on_log) hooks.on_log(r);
        }
        result.last_log = r;
        iv = Interval{};
      }
      if (o.eval_steps > 0 && step % o.eval_steps == 0 && step < o.max_steps && !stop) run_eval();
      if ((o.save_steps > 0 && step % o.save_steps == 0) || step == o.max_steps || stop) save();
      if (stop) {
        result.interrupted = true;
        message("stopped by a signal after step " + std::to_string(step) + "; continue with --resume auto");
        break;
      }
    } catch (const std::bad_alloc&) {
      throw_oom(o);
    } catch (const c10::Error& e) {
      if (is_out_of_memory(e.what())) throw_oom(o);
      throw;
    }
  }
  if (!result.interrupted && step >= o.max_steps) {
    if (last_saved_step != step) save();
    if (result.start_step < step) run_eval();
  }
  result.final_step = step;
  result.skipped_steps = skipped;
  result.seconds = seconds_since(t_start);
  return result;
}

}  // namespace bertpt::train
