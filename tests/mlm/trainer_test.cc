// The training loop: accumulation equivalence, exact resume, NaN skipping, checkpoints, learning.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "data/dataset.h"
#include "engine/run_checkpoint.h"
#include "mlm/batch_loader.h"
#include "mlm/evaluate.h"
#include "mlm/pretrain.h"
#include "mlm/train_test_util.h"
#include "model/checkpoint.h"

namespace bertpt::mlm {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

class TrainerTest : public ::testing::Test {
 protected:
  void SetUp() override { data = testing::make_dataset(dir, testing::structured_documents(150)); }
  int64_t vocab() { return int64_t(data::Dataset(data, "train").vocab_size()); }
  // Runs training and returns the per-step records.
  std::vector<StepRecord> run(const PretrainOptions& o, TrainHooks hooks = {}, TrainResult* result = nullptr) {
    std::vector<StepRecord> steps;
    hooks.on_step = [&](const StepRecord& r) { steps.push_back(r); };
    TrainResult r = run_pretraining(o, hooks);
    if (result) *result = r;
    return steps;
  }
  TempDir dir;
  std::string data;
};

TEST_F(TrainerTest, AccumulationEquivalence) {
  // 1 x batch 32 == 4 x batch 8 with accumulation: same samples, same masks, loss normalised by the
  // masked count of the whole global batch. Dropout off (its draws depend on the split).
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.0);
  PretrainOptions a = testing::tiny_options(data, model, dir.file("run-a"));
  a.per_device_batch_size = 32;
  a.max_steps = 4;
  PretrainOptions b = a;
  b.output_dir = dir.file("run-b");
  b.per_device_batch_size = 8;
  b.grad_accum = 4;
  auto ra = run(a), rb = run(b);
  ASSERT_EQ(ra.size(), 4u);
  ASSERT_EQ(rb.size(), 4u);
  for (size_t i = 0; i < ra.size(); ++i) {
    EXPECT_NEAR(ra[i].loss, rb[i].loss, 1e-5 * std::abs(ra[i].loss)) << "step " << i + 1;
    EXPECT_NEAR(ra[i].grad_norm, rb[i].grad_norm, 1e-4 * ra[i].grad_norm) << "step " << i + 1;
    EXPECT_DOUBLE_EQ(ra[i].accuracy, rb[i].accuracy);
  }
  auto wa = model::load_pretrained(dir.file("run-a/checkpoint-4"));
  auto wb = model::load_pretrained(dir.file("run-b/checkpoint-4"));
  auto pa = wa->named_parameters(), pb = wb->named_parameters();
  for (const auto& it : pa) {
    EXPECT_TRUE(at::allclose(it.value(), pb[it.key()], 1e-4, 1e-6)) << it.key();
  }
}

TEST_F(TrainerTest, InterruptedAndResumedRunHasTheSameLosses) {
  // Dropout on: its generator is re-seeded from (seed, step), so the resumed run replays it too.
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.1);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("full"));
  o.max_steps = 8;
  o.warmup_steps = 2;
  o.weight_decay = 0.01;
  auto full = run(o);
  ASSERT_EQ(full.size(), 8u);

  PretrainOptions p = o;
  p.output_dir = dir.file("parts");
  TrainHooks stop_at_3;
  int steps_seen = 0;
  stop_at_3.stop_requested = [&] { return ++steps_seen >= 3; };  // "SIGINT" during step 3
  TrainResult first;
  auto part1 = run(p, stop_at_3, &first);
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.final_step, 3);
  ASSERT_TRUE(fs::exists(dir.file("parts/checkpoint-3/DONE")));

  p.resume = "auto";
  TrainResult second;
  auto part2 = run(p, {}, &second);
  EXPECT_EQ(second.start_step, 3);
  EXPECT_EQ(second.final_step, 8);
  ASSERT_EQ(part1.size() + part2.size(), full.size());
  std::vector<StepRecord> joined = part1;
  joined.insert(joined.end(), part2.begin(), part2.end());
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(joined[i].step, full[i].step);
    EXPECT_DOUBLE_EQ(joined[i].loss, full[i].loss) << "step " << i + 1;
    EXPECT_DOUBLE_EQ(joined[i].grad_norm, full[i].grad_norm) << "step " << i + 1;
    EXPECT_DOUBLE_EQ(joined[i].learning_rate, full[i].learning_rate) << "step " << i + 1;
  }
  // metrics.jsonl has each step once.
  std::string metrics = testing::slurp(dir.file("parts/metrics.jsonl"));
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), '\n'), 8 + 1) << metrics;  // 8 steps + final eval
}

// The log records of a run resumed between two of them (a checkpoint at step 3, a record every 4
// steps — as after a kill -9): the first record covers the whole logging window, the steps before the
// checkpoint included (saved in trainer_state.json), so metrics.jsonl reads as the uninterrupted run's.
TEST_F(TrainerTest, ResumedBetweenLogRecordsLogsTheWholeWindow) {
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.1);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("full"));
  o.max_steps = 8;
  o.logging_steps = 4;
  o.save_steps = 3;
  o.save_total_limit = 0;
  o.report_to = "none";
  run(o);
  const auto state = nlohmann::json::parse(testing::slurp(dir.file("full/checkpoint-3/trainer_state.json")));
  ASSERT_EQ(state["log_window"]["steps"], 3) << state.dump();
  // The run "killed" after step 3: its directory as it was then.
  fs::create_directories(dir.file("parts"));
  fs::copy(dir.file("full/checkpoint-3"), dir.file("parts/checkpoint-3"), fs::copy_options::recursive);
  fs::copy_file(dir.file("full/metrics.jsonl"), dir.file("parts/metrics.jsonl"));
  PretrainOptions p = o;
  p.output_dir = dir.file("parts");
  p.resume = "auto";
  run(p);
  auto records = [](const std::string& path) {
    std::map<int64_t, nlohmann::json> by_step;
    std::istringstream in(testing::slurp(path));
    for (std::string line; std::getline(in, line);) {
      auto r = nlohmann::json::parse(line);
      if (r.contains("loss")) by_step[r["step"].get<int64_t>()] = r;
    }
    return by_step;
  };
  const auto full = records(dir.file("full/metrics.jsonl")), parts = records(dir.file("parts/metrics.jsonl"));
  ASSERT_EQ(full.size(), 2u);
  ASSERT_EQ(parts.size(), 2u);
  for (int64_t step : {4, 8}) {
    ASSERT_TRUE(parts.count(step)) << step;
    EXPECT_DOUBLE_EQ(parts.at(step)["loss"].get<double>(), full.at(step)["loss"].get<double>()) << step;
    EXPECT_DOUBLE_EQ(parts.at(step)["mlm_accuracy"].get<double>(), full.at(step)["mlm_accuracy"].get<double>());
    EXPECT_DOUBLE_EQ(parts.at(step)["grad_norm"].get<double>(), full.at(step)["grad_norm"].get<double>());
  }
}

TEST_F(TrainerTest, NonFiniteStepsAreSkippedThenStop) {
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.0);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("nan"));
  o.max_steps = 5;
  TrainHooks once;
  once.inject_nonfinite = [](int64_t step) { return step == 2; };
  TrainResult r;
  auto steps = run(o, once, &r);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_TRUE(steps[2].skipped);
  EXPECT_FALSE(steps[3].skipped);
  EXPECT_EQ(r.skipped_steps, 1);
  EXPECT_EQ(r.final_step, 5);

  o.output_dir = dir.file("nan2");
  o.max_nan_steps = 3;
  TrainHooks always;
  always.inject_nonfinite = [](int64_t step) { return step >= 1; };
  try {
    run(o, always);
    FAIL() << "no error after 3 non-finite steps";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("not finite for 3 steps in a row"), std::string::npos) << e.what();
  }
}

TEST_F(TrainerTest, OutOfMemoryIsOneLineWithTheBatchSizeHint) {
  // A real LibTorch allocation failure inside the forward pass (the CPU allocator refuses 2^50 bytes).
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.0);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("oom"));
  TrainHooks huge;
  huge.during_forward = [](int64_t step) {
    if (step == 1) at::empty({int64_t(1) << 48}, at::kFloat);
  };
  try {
    run(o, huge);
    FAIL() << "no error for an impossible allocation";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory at --per-device-batch-size"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("--grad-accum"), std::string::npos) << e.hint();
  }
}

TEST_F(TrainerTest, DeviceSideStepEqualsHostStep) {
  // --optim adamw_torch_fused: the step reads nothing back (the CUDA default; here on the CPU, where
  // it is the same code): the same losses and weights as bertpt's CPU AdamW with per-step reads.
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.1);
  PretrainOptions host = testing::tiny_options(data, model, dir.file("host"));
  host.max_steps = 8;
  host.warmup_steps = 2;
  host.weight_decay = 0.01;
  host.optim = "adamw_bertpt";
  PretrainOptions dev = host;
  dev.output_dir = dir.file("device");
  dev.optim = "adamw_torch_fused";
  auto rh = run(host), rd = run(dev);  // on_step reads every step
  ASSERT_EQ(rh.size(), 8u);
  ASSERT_EQ(rd.size(), 8u);
  for (size_t i = 0; i < rh.size(); ++i) {
    EXPECT_NEAR(rd[i].loss, rh[i].loss, 1e-5 * std::abs(rh[i].loss)) << "step " << i + 1;
    EXPECT_NEAR(rd[i].grad_norm, rh[i].grad_norm, 1e-4 * rh[i].grad_norm) << "step " << i + 1;
    EXPECT_FALSE(rd[i].skipped);
  }
  // Without on_step the device path reads only at logging steps: the logged means are the same.
  PretrainOptions deferred = dev;
  deferred.output_dir = dir.file("deferred");
  deferred.logging_steps = 4;
  TrainResult r = run_pretraining(deferred, {});
  EXPECT_EQ(r.final_step, 8);
  std::vector<double> logged;
  std::ifstream metrics(dir.file("deferred/metrics.jsonl"));
  for (std::string line; std::getline(metrics, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) logged.push_back(j["loss"].get<double>());
  }
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_NEAR(logged[0], (rh[0].loss + rh[1].loss + rh[2].loss + rh[3].loss) / 4, 0.05 * rh[0].loss)
      << "the interval's loss is the mean over its masked tokens, near the mean of the step losses";
  auto wh = model::load_pretrained(dir.file("host/checkpoint-8"));
  auto wd = model::load_pretrained(dir.file("deferred/checkpoint-8"));
  auto ph = wh->named_parameters(), pd = wd->named_parameters();
  for (const auto& it : ph) EXPECT_TRUE(at::allclose(pd[it.key()], it.value(), 1e-4, 1e-5)) << it.key();
  const auto state = engine::read_trainer_state(dir.file("deferred/checkpoint-8"));
  EXPECT_EQ(state["optimizer_steps"].get<int64_t>(), 8);
  EXPECT_EQ(state["kernels"]["adamw"], "libtorch_fused");
  EXPECT_EQ(state["kernels"]["attention"], "explicit");  // auto on CPU
  EXPECT_EQ(engine::read_trainer_state(dir.file("host/checkpoint-8"))["kernels"]["adamw"], "bertpt");
}

TEST_F(TrainerTest, NonFiniteStepsAreSkippedOnTheDevice) {
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.0);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("nan"));
  o.max_steps = 5;
  o.optim = "adamw_torch_fused";
  o.logging_steps = 5;  // without on_step, one read at step 5
  TrainHooks once;
  once.inject_nonfinite = [](int64_t step) { return step == 2; };
  TrainResult r = run_pretraining(o, once);
  EXPECT_EQ(r.skipped_steps, 1);
  EXPECT_EQ(r.final_step, 5);
  EXPECT_EQ(engine::read_trainer_state(dir.file("nan/checkpoint-5"))["optimizer_steps"].get<int64_t>(), 4)
      << "the skipped update is not counted";
  // The same run with a read every step: the skipped step is the third, its weights are untouched.
  o.output_dir = dir.file("nan-steps");
  auto steps = run(o, once);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_TRUE(steps[2].skipped);
  EXPECT_FALSE(steps[3].skipped);
  auto a = model::load_pretrained(dir.file("nan/checkpoint-5"));
  auto b = model::load_pretrained(dir.file("nan-steps/checkpoint-5"));
  auto pb = b->named_parameters();
  for (const auto& it : a->named_parameters()) EXPECT_TRUE(at::equal(it.value(), pb[it.key()])) << it.key();

  o.output_dir = dir.file("nan2");
  o.max_nan_steps = 3;
  o.logging_steps = 1;
  TrainHooks always;
  always.inject_nonfinite = [](int64_t step) { return step >= 1; };
  try {
    run_pretraining(o, always);
    FAIL() << "no error after 3 non-finite steps";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("not finite for 3 steps in a row"), std::string::npos) << e.what();
  }
}

TEST_F(TrainerTest, CheckpointIsAHuggingFaceDirectoryAndLimitHolds) {
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.1);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("ck"));
  o.max_steps = 6;
  o.save_steps = 2;
  o.save_total_limit = 2;
  TrainResult r;
  run(o, {}, &r);
  auto all = engine::list_checkpoints(o.output_dir);
  ASSERT_EQ(all.size(), 2u);  // 2 and ... pruned; 4 and 6 kept
  EXPECT_EQ(all[0].first, 4);
  EXPECT_EQ(all[1].first, 6);
  const std::string ck = all[1].second;
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "tokenizer_config.json",
                        "special_tokens_map.json", "optimizer.safetensors", "trainer_state.json", "DONE"}) {
    EXPECT_TRUE(fs::exists(fs::path(ck) / f)) << f;
  }
  auto state = engine::read_trainer_state(ck);
  EXPECT_EQ(state["step"], 6);
  EXPECT_EQ(state["data_position"], 6 * 8);
  EXPECT_TRUE(fs::exists(fs::path(o.output_dir) / "run_config.json"));
  auto loaded = model::load_pretrained(ck);
  EXPECT_EQ(loaded->config().vocab_size, vocab());
  // No temporary directories left behind.
  for (const auto& e : fs::directory_iterator(o.output_dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
  // A fresh run into the same directory is refused without --resume / --overwrite-output-dir.
  EXPECT_THROW(run(o), BadInput);
}

TEST_F(TrainerTest, TinyModelLearnsTheStructure) {
  // A 2-layer model, a few hundred steps: evaluation accuracy far above predicting the most
  // frequent masked token. (Tiny BERTs sit on a unigram plateau for the first ~200 steps before
  // they learn to use the context; hidden 64 and lr 2e-3 get past it quickly.)
  const std::string model = testing::write_tiny_config(dir, vocab(), 0.0, "learn.json", 64);
  PretrainOptions o = testing::tiny_options(data, model, dir.file("learn"));
  o.max_steps = 500;
  o.per_device_batch_size = 32;
  o.learning_rate = 2e-3;
  o.warmup_steps = 30;
  o.logging_steps = 100;
  TrainResult r;
  run(o, {}, &r);
  ASSERT_TRUE(r.last_eval.is_object());
  const double acc = r.last_eval["eval_accuracy"];

  // The frequency baseline on the same fixed evaluation mask.
  data::Dataset valid(data, "valid");
  ASSERT_GT(valid.size(), 0u);
  data::MaskingOptions mo = masking_for_dataset(valid, 0.15);
  data::Sampler order(valid.size(), 0, false);
  std::map<int64_t, int64_t> freq;
  int64_t total = 0;
  for (uint64_t i = 0; i < valid.size(); ++i) {
    MicroBatch mb = make_micro_batch(valid, order, mo, kEvalMaskSeed, i, 1);
    auto l = mb.labels.flatten();
    for (int64_t t = 0; t < l.numel(); ++t) {
      if (l[t].item<int64_t>() != -100) ++freq[l[t].item<int64_t>()], ++total;
    }
  }
  int64_t best = 0;
  for (auto& [id, n] : freq) best = std::max(best, n);
  const double baseline = double(best) / double(total);
  EXPECT_GT(acc, baseline + 0.15) << "accuracy " << acc << " vs baseline " << baseline;
  EXPECT_GT(acc, 2 * baseline) << "accuracy " << acc << " vs baseline " << baseline;

  // Evaluation is deterministic and independent of the batch size.
  EvalOptions eo;
  eo.batch_size = 3;
  EvalResult e1 = evaluate_checkpoint(r.last_checkpoint, data, "valid", eo);
  eo.batch_size = 16;
  EvalResult e2 = evaluate_checkpoint(r.last_checkpoint, data, "valid", eo);
  EXPECT_NEAR(e1.loss, e2.loss, 1e-5);
  EXPECT_EQ(e1.accuracy, e2.accuracy);
  EXPECT_NEAR(e1.accuracy, acc, 1e-9);
}

}  // namespace
}  // namespace bertpt::mlm
