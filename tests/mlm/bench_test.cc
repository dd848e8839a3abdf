// bertpt bench: its numbers must be consistent with each other and usable by bertpt cost.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "common/atomic_file.h"
#include "common/test_util.h"
#include "mlm/train_test_util.h"

namespace bertpt {
namespace {

using testing::run_bertpt;
using testing::shell_quote;
using testing::TempDir;

TEST(Bench, SweepRowsAreConsistentAndFeedCost) {
  TempDir d;
  std::string model = testing::write_tiny_config(d, 120, 0.1);
  auto r = run_bertpt("bench --json --model " + shell_quote(model) +
                      " --seq-len 16,32 --per-device-batch-size 2,4 --steps 2 --warmup-steps 1 --precision fp32"
                      " --threads 1 --peak-tflops 0.5 --out " +
                      shell_quote(d.file("bench.json")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 4u);
  EXPECT_DOUBLE_EQ(j["peak_flops"].get<double>(), 0.5e12);
  EXPECT_NE(j["flop_formula"].get<std::string>().find("masked"), std::string::npos);
  double best = 0;
  for (const auto& row : j["rows"]) {
    ASSERT_FALSE(row["out_of_memory"].get<bool>());
    const double seq = row["seq_per_sec"], tok = row["tokens_per_sec"], L = row["seq_len"], B = row["batch"];
    EXPECT_NEAR(tok, seq * L, 1e-6 * tok);
    EXPECT_NEAR(seq, B / row["step_median_sec"].get<double>(), 1e-9 * seq);
    EXPECT_NEAR(row["mfu"].get<double>(), row["flops_per_sec"].get<double>() / 0.5e12, 1e-12);
    EXPECT_LE(row["step_min_sec"].get<double>(), row["step_median_sec"].get<double>());
    EXPECT_LE(row["step_median_sec"].get<double>(), row["step_max_sec"].get<double>());
    EXPECT_GT(row["masked_per_step"].get<double>(), 0);
    best = std::max(best, tok);
  }
  EXPECT_DOUBLE_EQ(j["tokens_per_sec"].get<double>(), best) << "the top level names the fastest row";
  // The file feeds the cost model at the same sequence length.
  auto cost = run_bertpt("cost --json --bench " + shell_quote(d.file("bench.json")) + " --seq-len " +
                         std::to_string(j["seq_len"].get<int>()) + " --steps 1000 --global-batch 8 --price-per-hour 2");
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  auto c = nlohmann::json::parse(cost.out);
  EXPECT_NEAR(c["rows"][0]["hours"].get<double>(), 1000.0 * 8 / j["seq_per_sec"].get<double>() / 3600, 1e-9);
}

TEST(Bench, TwoRanksReportTheWholeJob) {
  TempDir d;
  std::string model = testing::write_tiny_config(d, 120, 0.1);
  auto r = run_bertpt("bench --json --model " + shell_quote(model) +
                      " --seq-len 16 --per-device-batch-size 4 --steps 2 --warmup-steps 1 --precision fp32"
                      " --threads 1 --peak-tflops 0.5 --nproc-per-node 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);  // one JSON line: only rank 0 reports
  EXPECT_EQ(j["world_size"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(j["peak_flops"].get<double>(), 2 * 0.5e12) << "the peak of both ranks";
  ASSERT_EQ(j["rows"].size(), 1u);
  const auto& row = j["rows"][0];
  // Throughput of the global batch (2 ranks x 4) at the slowest rank's step time.
  EXPECT_NEAR(row["seq_per_sec"].get<double>(), 8 / row["step_median_sec"].get<double>(), 1e-9 * 8);
  EXPECT_NEAR(row["mfu"].get<double>(), row["flops_per_sec"].get<double>() / 1e12, 1e-12);
}

// --padding: rows end in pad tokens that are neither attended nor predicted (ModernBERT runs them
// unpadded), so fewer positions are masked than in full rows of the same ids.
TEST(Bench, PaddedBatchesPredictOnlyRealTokens) {
  TempDir d;
  for (const std::string& model : {testing::write_tiny_config(d, 120, 0.1), std::string("modernbert-tiny")}) {
    auto masked = [&](const std::string& padding) {
      auto r = run_bertpt("bench --json --model " + shell_quote(model) +
                          " --seq-len 32 --per-device-batch-size 8 --steps 1 --warmup-steps 0 --precision fp32"
                          " --threads 1 --vocab-size 120 --padding " +
                          padding);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      auto j = nlohmann::json::parse(r.out);
      EXPECT_DOUBLE_EQ(j["padding"].get<double>(), std::stod(padding));
      return j["rows"][0]["masked_per_step"].get<double>();
    };
    const double full = masked("0"), padded = masked("0.9");
    EXPECT_GT(padded, 0) << model;
    EXPECT_LT(padded, full) << model;
  }
}

// --profile: one more step of train's StepRunner recorded as a Chrome trace; its operators, the
// autograd engine's backward and the optimizer's range are in it (bench/profile_step.py's phases).
TEST(Bench, ProfileRecordsOneTrainingStep) {
  TempDir d;
  std::string model = testing::write_tiny_config(d, 120, 0.1);
  const std::string trace = d.file("step.json");
  auto r = run_bertpt("bench --json --model " + shell_quote(model) +
                      " --seq-len 16 --per-device-batch-size 4 --steps 1 --warmup-steps 1 --precision fp32"
                      " --threads 1 --vocab-size 120 --profile " +
                      shell_quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::slurp(trace));
  std::map<std::string, int> calls;
  for (const auto& e : j["traceEvents"]) {
    if (e.value("ph", "") == "X") calls[e["name"].get<std::string>()] += 1;
  }
  EXPECT_EQ(calls["step.optimizer"], 1) << "one step recorded";
  EXPECT_GT(calls["aten::mm"] + calls["aten::addmm"], 0);
  int backward = 0;
  for (const auto& [name, n] : calls) {
    if (name.rfind("autograd::engine::evaluate_function", 0) == 0) backward += n;
  }
  EXPECT_GT(backward, 0);
  for (const auto& entry : std::filesystem::directory_iterator(d.path())) {
    EXPECT_FALSE(is_temp_name(entry.path().filename().string())) << entry.path() << ": a temporary left behind";
  }

  auto sweep = run_bertpt("bench --model " + shell_quote(model) + " --seq-len 16,32 --profile " + shell_quote(trace));
  EXPECT_EQ(sweep.exit_code, 1);
  EXPECT_NE(sweep.err.find("--profile records one step of one row, not a sweep"), std::string::npos) << sweep.err;
  auto nodir = run_bertpt("bench --model " + shell_quote(model) + " --profile " + shell_quote(d.file("no/t.json")));
  EXPECT_EQ(nodir.exit_code, 1);
  EXPECT_NE(nodir.err.find("does not exist"), std::string::npos) << nodir.err;
}

TEST(Bench, BadOptionsAreClearErrors) {
  TempDir d;
  std::string model = testing::write_tiny_config(d, 120, 0.1);
  auto r = run_bertpt("bench --model " + shell_quote(model) + " --seq-len 1000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("max_position_embeddings"), std::string::npos) << r.err;
  auto l = run_bertpt("bench --model " + shell_quote(model) + " --per-device-batch-size 8,x");
  EXPECT_EQ(l.exit_code, 1);
  EXPECT_NE(l.err.find("'x'"), std::string::npos) << l.err;
  auto p = run_bertpt("bench --model " + shell_quote(model) + " --padding 1.5");
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_NE(p.err.find("--padding 1.5 is outside [0, 1)"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace bertpt
