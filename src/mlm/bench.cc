#include "mlm/bench.h"

#include <ATen/ATen.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>

#include "common/error.h"
#include "data/dataset.h"
#include "data/masking.h"
#include "data/sampler.h"
#include "engine/adamw.h"
#include "engine/collectives.h"
#include "engine/device.h"
#include "engine/driver.h"
#include "engine/failures.h"
#include "engine/precision.h"
#include "engine/step_runner.h"
#include "engine/step_trace.h"
#include "engine/training_run.h"
#include "mlm/batch_loader.h"
#include "mlm/mlm_step.h"
#include "model/architecture.h"
#include "model/bert_config.h"
#include "model/cpu_runtime.h"
#include "model/torch_compat.h"
#include "perf/flops.h"

namespace bertpt::mlm {

namespace {

// Synthetic step `step`'s micro-batch `micro` ([b, T] ids and labels): [CLS] random ids [SEP] with
// HF-style masking, each (step, micro) its own ids and masks.
void synthetic_micro_batch(const BenchOptions& o, int64_t vocab, int64_t batch, int64_t seq_len, int64_t step,
                           int64_t micro, at::Tensor& ids, at::Tensor& labels) {
  std::vector<int64_t> raw(size_t(batch * seq_len)), in(raw.size()), lab(raw.size());
  data::MaskingOptions mo;
  mo.mlm_probability = o.mlm_probability;
  mo.vocab_size = vocab;
  mo.mask_id = 4;
  mo.never_mask = {0, 2, 3};
  const uint64_t seed = o.seed + 0x9E3779B97F4A7C15ull * uint64_t(step * o.grad_accum + micro);
  uint64_t x = seed;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t* row = raw.data() + b * seq_len;
    for (int64_t t = 0; t < seq_len; ++t) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      row[t] = 5 + int64_t((x >> 33) % uint64_t(vocab - 5));
    }
    row[0] = 2;
    row[seq_len - 1] = 3;
    data::mask_tokens(mo, seed, 0, uint64_t(b), row, in.data() + b * seq_len, lab.data() + b * seq_len,
                      size_t(seq_len));
  }
  ids = torch::tensor(in, torch::kLong).view({batch, seq_len});
  labels = torch::tensor(lab, torch::kLong).view({batch, seq_len});
}

// The step batches bench cycles through, each step's micro-batches its own, as train's are: with a
// dataset, train's own (the shuffled sampler at train's default seed, the dataset's masking:
// mlm/batch_loader.h), cut to `seq_len`; else synthetic ones. Distinct batches matter: the sparse
// head's rows follow each batch's masked positions. At most max(grad_accum, 64) micro-batches are held.
std::vector<StepBatch> make_step_batches(const BenchOptions& o, const data::Dataset* ds, int64_t vocab, int64_t batch,
                                         int64_t seq_len) {
  const int64_t steps = std::clamp<int64_t>(64 / o.grad_accum, 1, o.warmup_steps + o.steps);
  std::unique_ptr<data::Sampler> sampler;
  data::MaskingOptions masking;
  if (ds) {
    sampler = std::make_unique<data::Sampler>(ds->size(), o.seed, /*shuffle=*/true);
    masking = masking_for_dataset(*ds, o.mlm_probability);
  }
  std::vector<StepBatch> batches(static_cast<size_t>(steps));
  for (int64_t s = 0; s < steps; ++s) {
    for (int64_t m = 0; m < o.grad_accum; ++m) {
      at::Tensor ids, labels;
      if (ds) {
        const uint64_t position = uint64_t((s * o.grad_accum + m) * batch);
        const MicroBatch full = make_micro_batch(*ds, *sampler, masking, o.seed, position, batch, false);
        ids = full.input_ids.narrow(1, 0, seq_len).contiguous();
        labels = full.labels.narrow(1, 0, seq_len).contiguous();
      } else {
        synthetic_micro_batch(o, vocab, batch, seq_len, s, m, ids, labels);
      }
      const at::Tensor mask = o.padding > 0 ? pad_row_tails(ids, labels, o.padding) : at::Tensor();
      batches[size_t(s)].micro.push_back(micro_batch_of(ids, labels, mask));
      batches[size_t(s)].num_masked += batches[size_t(s)].micro.back().num_masked;
    }
  }
  return batches;
}

}  // namespace

at::Tensor pad_row_tails(at::Tensor& ids, at::Tensor& labels, double padding) {
  const int64_t batch = ids.size(0), seq_len = ids.size(1);
  at::Tensor attention_mask = at::ones({batch, seq_len}, at::kLong);
  for (int64_t b = 0; b < batch; ++b) {
    const auto pad = int64_t(padding * double(seq_len) * double(b) / double(std::max<int64_t>(batch - 1, 1)));
    if (pad == 0) continue;
    ids[b].narrow(0, seq_len - pad, pad).zero_();
    labels[b].narrow(0, seq_len - pad, pad).fill_(-100);
    attention_mask[b].narrow(0, seq_len - pad, pad).zero_();
  }
  return attention_mask;
}

nlohmann::json BenchResult::to_json(const BenchOptions& o) const {
  nlohmann::json j;
  j["model"] = o.model;
  j["precision"] = o.precision;
  j["device"] = o.device;
  j["data"] = o.data.empty() ? "synthetic" : o.data;
  j["padding"] = o.padding;
  j["grad_accum"] = o.grad_accum;
  j["world_size"] = world_size;
  j["peak_flops"] = peak_flops;
  j["peak_source"] = peak_source;
  j["flop_formula"] = flop_formula;
  j["parameters"] = parameters;
  j["gradient_bytes"] = 4 * parameters;
  if (world_size > 1) j["allreduce_sec"] = allreduce_sec;
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json row = {{"seq_len", r.seq_len}, {"batch", r.batch}, {"out_of_memory", r.out_of_memory}};
    if (!r.error.empty()) row["error"] = r.error;
    if (!r.out_of_memory && r.error.empty()) {
      row.update({{"step_median_sec", r.step_median_sec},
                  {"step_min_sec", r.step_min_sec},
                  {"step_max_sec", r.step_max_sec},
                  {"seq_per_sec", r.seq_per_sec},
                  {"tokens_per_sec", r.tokens_per_sec},
                  {"masked_per_step", r.masked_per_step},
                  {"flops_per_step", r.flops_per_step},
                  {"flops_per_sec", r.flops_per_sec},
                  {"mfu", r.mfu}});
    }
    j["rows"].push_back(row);
  }
  // The fastest configuration, at the top level: what `bertpt cost --bench` reads.
  if (!rows.empty() && rows[fastest].seq_per_sec > 0) {
    j["seq_len"] = rows[fastest].seq_len;
    j["batch"] = rows[fastest].batch;
    j["seq_per_sec"] = rows[fastest].seq_per_sec;
    j["tokens_per_sec"] = rows[fastest].tokens_per_sec;
    j["mfu"] = rows[fastest].mfu;
  }
  return j;
}

namespace {

// The model of the benchmark: --model, with the dataset's vocabulary, or for a preset without data
// the synthetic one.
model::BertConfig bench_config(const BenchOptions& o, const data::Dataset* ds) {
  model::BertConfig config = model::resolve_model_config(o.model);
  if (ds) {
    config.vocab_size = int64_t(ds->vocab_size());
  } else if (o.model.find(".json") == std::string::npos) {
    config.vocab_size = o.vocab_size;  // a preset: the synthetic vocabulary decides
  }
  config.validate();
  return config;
}

void check_seq_len(int64_t seq_len, const model::BertConfig& config, const data::Dataset* ds) {
  if (seq_len < 8 || seq_len > config.max_position_embeddings) {
    throw BadInput("--seq-len " + std::to_string(seq_len) + " is outside 8.." +
                   std::to_string(config.max_position_embeddings) + " (the model's max_position_embeddings)");
  }
  if (ds && seq_len > int64_t(ds->seq_len())) {
    throw BadInput("--seq-len " + std::to_string(seq_len) + " is longer than the dataset's " +
                   std::to_string(ds->seq_len()));
  }
}

// --profile records one step of one row, into a directory that exists (checked before anything runs).
void check_profile_path(const BenchOptions& o) {
  if (o.seq_lens.size() != 1 || o.batch_sizes.size() != 1) {
    throw BadInput("--profile records one step of one row, not a sweep",
                   "give one --seq-len and one --per-device-batch-size");
  }
  const std::filesystem::path dir = std::filesystem::absolute(o.profile).parent_path();
  if (!std::filesystem::is_directory(dir)) {
    throw BadInput("--profile " + o.profile + ": the directory " + dir.string() + " does not exist");
  }
}

// This rank's step times (seconds, sorted, after the warmup) and masked positions per step.
struct RowTiming {
  std::vector<double> times;
  double masked = 0;
  int64_t parameters = 0;  // of the model that ran
};

// One row of the benchmark as a task of the training driver (engine/driver.h), in a run without a
// directory: a fresh model trained for warmup_steps + steps optimizer steps on make_step_batches,
// each step timed until the device is done. The step is train's own (mlm/mlm_step.h, the driver's
// loop and StepRunner): train's defaults (AdamW's, clipping to 1.0, the non-finite policy, AdamW's
// kernel choice, bf16 autocast, the sparse head), --grad-accum micro-batches of `batch` sequences.
class TimedSteps : public engine::TrainingTask {
 public:
  TimedSteps(const BenchOptions& o, const model::BertConfig& config, const data::Dataset* ds, engine::TrainingRun& run,
             int64_t batch, int64_t seq_len)
      : o_(o), config_(config), ds_(ds), run_(run), batch_(batch), seq_len_(seq_len) {}
  RowTiming& timing() { return timing_; }

  std::vector<std::string> state_fields() const override { return {}; }
  void check_resume(const engine::ResumePoint&) const override {}
  std::string earlier_run() const override { return "a run"; }
  void build(const engine::ResumePoint&) override {
    at::manual_seed(o_.seed);
    model_ = model::make_masked_lm(config_);
    model_->to(run_.device());
    model_->train();
    run_.attach_model(*model_, engine::AdamWOptions{});  // train's defaults (adamw.h)
    timing_.parameters = model::count_parameters(*model_);
    batches_ = make_step_batches(o_, ds_, config_.vocab_size, batch_, seq_len_);
    for (const StepBatch& b : batches_) forwards_.push_back(mlm_micro_forward(*model_, b, run_.device()));
  }
  int64_t restore(const engine::ResumePoint&) override { return 0; }
  engine::StepSettings step_settings() const override {
    return engine::step_settings_of(run_.options(), [seed = o_.seed, rank = run_.rank()](int64_t step, int64_t m) {
      return mlm_dropout_seed(seed, step, rank, m);
    });
  }
  nlohmann::json model_config() const override { return nullptr; }
  // The timed steps, and with --profile one more recorded on rank 0 (every rank steps: the all-reduce).
  int64_t total_steps() const override { return o_.warmup_steps + o_.steps + (o_.profile.empty() ? 0 : 1); }
  engine::TaskStep next_step(int64_t s) override {
    if (s == o_.warmup_steps + o_.steps && run_.rank() == 0) {
      trace_ = std::make_unique<engine::StepTrace>(o_.profile, run_.device());
    }
    engine::TaskStep next;
    next.input.started = std::chrono::steady_clock::now();
    next.input.step = s;
    next.input.micro_steps = o_.grad_accum;
    k_ = size_t(s) % batches_.size();
    next.input.count = double(batches_[k_].num_masked) * run_.world();  // every rank runs the same batches
    next.input.lr = 1e-5;
    next.input.log_step = next.input.read_back = true;  // reads the loss back: the time includes the device's work
    next.forward = forwards_[k_];
    return next;
  }
  void stepped(int64_t step, const engine::StepInput& in, const engine::StepOutput&) override {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - in.started).count();
    if (trace_) trace_->save(), trace_.reset();
    const int64_t s = step - 1;
    if (s < o_.warmup_steps || s >= o_.warmup_steps + o_.steps) return;
    timing_.times.push_back(seconds);
    timing_.masked += double(batches_[k_].num_masked) / double(o_.steps);  // the mean over the timed steps
  }
  void log(int64_t, const engine::StepInterval&) override {}
  bool saves_after(int64_t) const override { return false; }
  engine::TaskCheckpoint checkpoint() const override { return {}; }
  nlohmann::json trainer_state() const override { return nullptr; }
  std::string model_card() const override { return {}; }
  void finish(int64_t, bool) override { std::sort(timing_.times.begin(), timing_.times.end()); }

 private:
  const BenchOptions& o_;
  const model::BertConfig& config_;
  const data::Dataset* ds_;
  engine::TrainingRun& run_;
  const int64_t batch_, seq_len_;
  std::shared_ptr<model::MaskedLanguageModel> model_;
  std::vector<StepBatch> batches_;
  std::vector<engine::MicroForward> forwards_;
  size_t k_ = 0;  // the current step's batch
  std::unique_ptr<engine::StepTrace> trace_;
  RowTiming timing_;
};

// The row's step times: the driver in a run without a directory (no lock, checkpoints or log files).
RowTiming time_training_steps(const BenchOptions& o, const model::BertConfig& config, const data::Dataset* ds,
                              int64_t batch, int64_t seq_len) {
  engine::RunOptions options(/*learning_rate=*/1e-5, /*weight_decay=*/0.0, o.seed);
  options.per_device_batch_size = batch;
  options.grad_accum = o.grad_accum;
  options.precision = o.precision;
  options.device = o.device;
  options.threads = o.threads;
  options.report_to = "none";
  engine::RunHooks hooks;
  hooks.collectives = o.collectives;
  engine::TrainingRun run(options, nullptr, hooks);
  TimedSteps task(o, config, ds, run, batch, seq_len);
  engine::train(run, task);
  return std::move(task.timing());
}

// The job's numbers: ranks step in lockstep (the all-reduce), so the slowest rank's median is the
// job's step time; throughput and FLOPs add up over ranks.
void fill_row(BenchRow& row, const RowTiming& t, engine::Collectives& coll, const perf::BertFlops& flops,
              double peak_flops, int64_t grad_accum) {
  const int world = coll.world_size();
  const std::vector<double> stats = {t.times[t.times.size() / 2], t.times.front(), t.times.back()};
  std::vector<double> slowest(size_t(world) * 3, 0.0);
  for (int k = 0; k < 3; ++k) slowest[size_t(coll.rank() * 3 + k)] = stats[size_t(k)];
  coll.sum(slowest);
  std::vector<double> total_masked = {t.masked};
  coll.sum(total_masked);
  for (int r = 0; r < world; ++r) {
    row.step_median_sec = std::max(row.step_median_sec, slowest[size_t(r * 3)]);
    row.step_max_sec = std::max(row.step_max_sec, slowest[size_t(r * 3 + 2)]);
    row.step_min_sec = r == 0 ? slowest[1] : std::min(row.step_min_sec, slowest[size_t(r * 3 + 1)]);
  }
  const double global_batch = double(row.batch * grad_accum) * world;
  row.seq_per_sec = global_batch / row.step_median_sec;
  row.tokens_per_sec = row.seq_per_sec * double(row.seq_len);
  row.masked_per_step = total_masked[0];
  row.flops_per_step = flops.train_flops(global_batch, double(row.seq_len), total_masked[0]);
  row.flops_per_sec = row.flops_per_step / row.step_median_sec;
  row.mfu = peak_flops > 0 ? row.flops_per_sec / peak_flops : 0;
}

// The median time of one all-reduce of `numel` fp32 values (the gradients of a step, not overlapped
// with anything) over the job's ranks: what `bertpt cost --scale-nodes` is checked against
// (docs/distributed.md, "Scaling model").
double time_gradient_allreduce(int64_t numel, const at::Device& device, engine::Collectives& coll) {
  std::vector<at::Tensor> grads = {at::ones({numel}, at::TensorOptions().dtype(at::kFloat).device(device))};
  std::vector<double> times;
  for (int i = 0; i < 6; ++i) {
    coll.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    coll.sum_on_device(grads);
    (void)grads[0][0].item<float>();  // wait for the device
    if (i > 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  std::vector<double> median(size_t(coll.world_size()), 0.0);
  median[size_t(coll.rank())] = times[times.size() / 2];
  coll.sum(median);
  return *std::max_element(median.begin(), median.end());
}

}  // namespace

BenchResult run_bench(const BenchOptions& o) {
  if (o.steps < 1 || o.warmup_steps < 0) throw BadInput("--steps must be at least 1 and --warmup-steps at least 0");
  if (o.grad_accum < 1 || o.grad_accum > 4096) throw BadInput("--grad-accum must be in [1, 4096]");
  if (!(o.padding >= 0 && o.padding < 1)) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", o.padding);
    throw BadInput(std::string("--padding ") + value + " is outside [0, 1)",
                   "0.8 pads the last row over 80% of its positions, the rows before it less");
  }
  if (!o.profile.empty()) check_profile_path(o);
  const bool bf16 = engine::is_bf16(o.precision);
  const at::Device device(engine::setup_runtime(o.threads, o.device));
  std::unique_ptr<data::Dataset> ds;
  if (!o.data.empty()) ds = std::make_unique<data::Dataset>(o.data, "train");
  const model::BertConfig config = bench_config(o, ds.get());

  engine::SingleProcess single;
  engine::Collectives& coll = o.collectives ? *o.collectives : single;
  const int world = coll.world_size();
  BenchResult result;
  const perf::PeakFlops peak = perf::peak_flops(device.str(), bf16, o.peak_tflops);
  std::vector<double> peaks = {peak.flops_per_sec};
  coll.sum(peaks);  // every rank's own peak (on CPU: measured while the other ranks measure theirs)
  result.peak_flops = peaks[0];
  result.peak_source = world > 1 ? std::to_string(world) + " ranks, each: " + peak.source : peak.source;
  result.world_size = world;
  result.flop_formula =
      "6 * N_matmul * tokens + 12 * layers * hidden * seq_len * tokens, MLM head (H*H + V*H) counted only at the "
      "masked positions (sparse head)";
  if (config.is_modernbert()) {
    result.flop_formula +=
        "; ModernBERT: GeGLU N_matmul, sliding-window layers count about local_attention + 1 keys "
        "per query instead of seq_len";
  }
  const perf::BertFlops flops(config);
  for (int64_t seq_len : o.seq_lens) {
    check_seq_len(seq_len, config, ds.get());
    for (int64_t batch : o.batch_sizes) {
      BenchRow row;
      row.seq_len = seq_len;
      row.batch = batch;
      try {
        const RowTiming timing = time_training_steps(o, config, ds.get(), batch, seq_len);
        result.parameters = timing.parameters;  // the same model for every row
        fill_row(row, timing, coll, flops, result.peak_flops, o.grad_accum);
      } catch (const BadInput&) {
        throw;
      } catch (const std::exception& e) {
        const std::string what = e.what();
        if (engine::is_out_of_memory(e)) row.out_of_memory = true;
        else row.error = what.substr(0, what.find('\n'));
      }
      result.rows.push_back(row);
    }
  }
  for (size_t i = 0; i < result.rows.size(); ++i) {
    if (result.rows[i].tokens_per_sec > result.rows[result.fastest].tokens_per_sec) result.fastest = i;
  }
  if (world > 1 && result.parameters > 0) {
    result.allreduce_sec = time_gradient_allreduce(result.parameters, device, coll);
  }
  return result;
}

}  // namespace bertpt::mlm
