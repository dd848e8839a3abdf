// Data-parallel training end to end through the CLI, over c10d Gloo on loopback: the main
// semantics test of docs/distributed.md — 2 ranks x batch 8 train exactly like 1 rank x batch 16.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/test_util.h"
#include "data/dataset.h"
#include "mlm/train_test_util.h"

namespace bertpt {
namespace {

using testing::run_bertpt;
using testing::run_shell;
using testing::shell_quote;
using testing::TempDir;

std::vector<double> losses(const std::string& run) {
  std::vector<double> out;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss") && !j.contains("eval_loss")) out.push_back(j["loss"].get<double>());
  }
  return out;
}

void expect_same_losses(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_FALSE(a.empty()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-5 * std::abs(b[i]) + 1e-7) << what << ", step " << i + 1;
}

class DistTrain : public ::testing::Test {
 protected:
  void SetUp() override {
    data = testing::make_dataset(dir, testing::structured_documents(160));
    data::Dataset ds(data, "train");
    model = testing::write_tiny_config(dir, int64_t(ds.vocab_size()), /*dropout=*/0.0);
  }
  std::string train_args(const std::string& out, int batch, int steps) {
    return "train --quiet --data " + shell_quote(data) + " --model " + shell_quote(model) + " --output-dir " +
           shell_quote(dir.file(out)) + " --precision fp32 --threads 1 --per-device-batch-size " +
           std::to_string(batch) + " --max-steps " + std::to_string(steps) +
           " --learning-rate 1e-3 --logging-steps 1 --eval-steps 0" + " --peak-tflops 1 --dist-timeout 60";
  }
  TempDir dir;
  std::string data, model;
};

// Also: every rank checks at the end that all ranks hold bit-identical parameters (exit 1 otherwise),
// so a zero exit code of the 2-rank run asserts that the replicas stayed in lockstep.
TEST_F(DistTrain, TwoRanksOfBatch8TrainLikeOneRankOfBatch16) {
  auto one = run_bertpt(train_args("one", 16, 5) + " --save-steps 0");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_bertpt(train_args("two", 8, 5) + " --save-steps 0 --nproc-per-node 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  expect_same_losses(losses(dir.file("two")), losses(dir.file("one")), "2x8 vs 1x16");
}

TEST_F(DistTrain, DeviceSideStepTwoRanksTrainLikeOne) {
  // --optim adamw_torch_fused: the step reads nothing back (the CUDA path): metric sums are
  // all-reduced as tensors, the stop flag and the counters only at logging steps (here every 2).
  auto args = [&](const std::string& out, int batch) {
    std::string a = train_args(out, batch, 6);
    return a.replace(a.find("--logging-steps 1"), 17, "--logging-steps 2") + " --save-steps 0";
  };
  const std::string fused = " --optim adamw_torch_fused";
  auto one = run_bertpt(args("one-dev", 16) + fused);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_bertpt(args("two-dev", 8) + fused + " --nproc-per-node 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto host = run_bertpt(args("one-host", 16) + " --optim adamw_bertpt");
  ASSERT_EQ(host.exit_code, 0) << host.err;
  EXPECT_EQ(losses(dir.file("two-dev")).size(), 3u);
  expect_same_losses(losses(dir.file("two-dev")), losses(dir.file("one-dev")), "2x8 vs 1x16, device-side step");
  expect_same_losses(losses(dir.file("one-dev")), losses(dir.file("one-host")), "device-side vs host step");
}

TEST_F(DistTrain, ElasticResumeFromTwoRanksToOneAndBack) {
  // A constant learning rate, so that runs stopped at step 3 follow the same schedule as whole ones.
  const std::string c = " --lr-scheduler constant";
  auto whole = run_bertpt(train_args("whole", 16, 6) + c + " --save-steps 0");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  // 2 ranks for the first 3 steps (checkpoint at step 3), then 1 rank to the end.
  auto first = run_bertpt(train_args("elastic", 8, 3) + c + " --save-steps 3 --nproc-per-node 2");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto rest = run_bertpt(train_args("elastic", 16, 6) + c + " --resume auto");
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  expect_same_losses(losses(dir.file("elastic")), losses(dir.file("whole")), "2 ranks then 1 vs 1 throughout");
  // And 1 rank for 3 steps, then 2 ranks.
  auto a = run_bertpt(train_args("back", 16, 3) + c + " --save-steps 3");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto b = run_bertpt(train_args("back", 8, 6) + c + " --resume auto --nproc-per-node 2");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  expect_same_losses(losses(dir.file("back")), losses(dir.file("whole")), "1 rank then 2 vs 1 throughout");
}

TEST_F(DistTrain, RunsUnderMpirun) {
  if (run_shell("command -v mpirun").exit_code != 0)
    BERTPT_SKIP_UNLESS_CI("openmpi-bin is not installed (scripts/setup installs it)");
  auto one = run_bertpt(train_args("ref", 16, 3) + " --save-steps 0");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  int port = 29000 + int(::getpid() % 1000);
  auto mpi = run_shell("mpirun --allow-run-as-root --oversubscribe -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=" +
                       std::to_string(port) + " " + shell_quote(testing::bertpt_bin()) + " " + train_args("mpi", 8, 3) +
                       " --save-steps 0");
  ASSERT_EQ(mpi.exit_code, 0) << mpi.err << mpi.out;
  expect_same_losses(losses(dir.file("mpi")), losses(dir.file("ref")), "mpirun -np 2 x 8 vs 1 x 16");
}

TEST_F(DistTrain, NodesStartedForDifferentWorldSizesEndAtOnceWithOneErrorEach) {
  // Node 0 started for a world of 2 (one process), node 1 for a world of 4 (two processes), both on this
  // machine. Node 1's ranks name the mismatch; rank 0 learns it from the store and ends too, instead of
  // waiting --dist-timeout (60 s) in Gloo for a rank 1 that never comes and printing its socket warnings.
  const int port = 30000 + int(::getpid() % 1000);
  auto node = [&](int rank, int nproc, const std::string& err) {
    return shell_quote(testing::bertpt_bin()) + " " + train_args("mismatch", 8, 4) +
           " --save-steps 0 --nnodes 2 --node-rank " + std::to_string(rank) + " --nproc-per-node " +
           std::to_string(nproc) + " --master-addr 127.0.0.1 --master-port " + std::to_string(port) + " 2>" +
           shell_quote(dir.file(err));
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_shell(node(0, 1, "node0.err") + " & n0=$!; " + node(1, 2, "node1.err") +
                     "; echo rc1=$?; wait $n0; echo rc0=$?");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30)) << "waited out --dist-timeout";
  EXPECT_NE(r.out.find("rc1=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rc0=1"), std::string::npos) << r.out;
  std::vector<std::string> lines;  // each node's error line: the same
  for (const std::string err : {"node0.err", "node1.err"}) {
    const std::string text = testing::slurp(dir.file(err));
    const size_t at = text.find("bertpt: error: rank ");
    ASSERT_NE(at, std::string::npos) << err << ":\n" << text;
    lines.push_back(text.substr(at, text.find('\n', at) - at));
    EXPECT_NE(lines.back().find(" was started for a world of 4 processes, rank 0 for 2"), std::string::npos)
        << err << ":\n"
        << text;
    size_t errors = 0;
    for (size_t at = text.find("bertpt: error:"); at != std::string::npos; at = text.find("bertpt: error:", at + 1)) {
      ++errors;
    }
    EXPECT_EQ(errors, 1u) << err << ":\n" << text;
    EXPECT_EQ(text.find("socket"), std::string::npos) << err << ":\n" << text;
  }
  EXPECT_EQ(lines[0], lines[1]);
}

TEST_F(DistTrain, AKilledRankEndsTheJobWithAnError) {
  // Rank 1 of a long run is killed once training is under way; the launcher must end the job
  // non-zero, naming the rank, instead of leaving rank 0 waiting forever.
  std::string cmd = shell_quote(testing::bertpt_bin()) + " " + train_args("killed", 8, 100000) +
                    " --save-steps 0 --nproc-per-node 2";
  std::string script = cmd + " & L=$!; for i in $(seq 1 300); do [ -s " +
                       shell_quote(dir.file("killed/metrics.jsonl")) + " ] && break; sleep 0.1; done; " +
                       "kill -9 $(pgrep -P $L | tail -1); wait $L; echo \"exit=$?\"";
  auto r = run_shell(script);
  EXPECT_NE(r.out.find("exit="), std::string::npos);
  EXPECT_EQ(r.out.find("exit=0"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("failed"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bertpt
