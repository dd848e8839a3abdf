// Data-parallel communication on c10d Gloo over loopback, with real processes: each test launches
// copies of this test binary through bertpt's launcher; a copy started with BERTPT_DIST_WORKER set
// runs that worker instead of the tests (see WorkerDispatch at the bottom).
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "common/error.h"
#include "common/test_util.h"
#include "distributed/communicator.h"
#include "distributed/dist_env.h"
#include "distributed/launcher.h"

namespace bertpt::distributed {
namespace {

using testing::slurp;
using testing::TempDir;

std::string self_exe() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return std::string(buf, size_t(n > 0 ? n : 0));
}

int launch(const std::string& worker, int n, const std::string& out_dir, double grace = 2) {
  ::setenv("BERTPT_DIST_WORKER", worker.c_str(), 1);
  ::setenv("BERTPT_DIST_OUT", out_dir.c_str(), 1);
  distributed::LaunchOptions o;
  o.nproc_per_node = n;
  o.argv = {self_exe()};
  o.quiet = true;
  o.grace_seconds = grace;
  int rc = distributed::run_workers(o);
  ::unsetenv("BERTPT_DIST_WORKER");
  return rc;
}

TEST(Dist, AllReduceBroadcastAndAgreementOverGloo) {
  TempDir d;
  ASSERT_EQ(launch("collectives", 3, d.path()), 0);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(slurp(d.file("rank" + std::to_string(r))), "6 42 ok\n") << "rank " << r;
}

TEST(Dist, BucketedGradientsEqualTheFullBatchGradient) {
  TempDir d;
  ASSERT_EQ(launch("buckets", 2, d.path()), 0);
  for (int r = 0; r < 2; ++r) EXPECT_EQ(slurp(d.file("rank" + std::to_string(r))), "match\n") << "rank " << r;
}

TEST(Dist, DisagreeingRanksAreReportedOnEveryRank) {
  TempDir d;
  EXPECT_NE(launch("mismatch", 2, d.path()), 0);
  EXPECT_NE(slurp(d.file("rank0")).find("disagree"), std::string::npos);
}

TEST(Dist, ARankThatNeverArrivesFailsTheJobInBoundedTime) {
  TempDir d;
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(launch("straggler", 2, d.path()), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

// ---- workers

void write_result(const std::string& text) {
  auto env = distributed::detect_dist_env();
  std::ofstream(std::string(std::getenv("BERTPT_DIST_OUT")) + "/rank" + std::to_string(env.rank)) << text << "\n";
}

CommunicatorOptions short_timeout() {
  CommunicatorOptions o;
  o.timeout = std::chrono::seconds(5);
  return o;
}

int worker_collectives() {
  auto env = distributed::detect_dist_env();
  auto comm = make_communicator(env, short_timeout());
  std::vector<at::Tensor> t = {torch::tensor({double(env.rank + 1)})};
  comm->all_reduce_sum(t);
  std::vector<at::Tensor> b = {torch::tensor({env.rank == 0 ? 42.0 : -1.0})};
  comm->broadcast(b, 0);
  comm->check_same("the answer", 42);
  comm->barrier();
  write_result(std::to_string(int(t[0].item<double>())) + " " + std::to_string(int(b[0].item<double>())) + " ok");
  return 0;
}

int worker_buckets() {
  auto env = distributed::detect_dist_env();
  auto comm = make_communicator(env, short_timeout());
  torch::manual_seed(0);  // the same initial weights on every rank
  auto w1 = torch::randn({8, 5}, torch::requires_grad());
  auto w2 = torch::randn({3, 8}, torch::requires_grad());
  auto unused = torch::randn({4}, torch::requires_grad());  // takes no part: must not block
  auto data = torch::randn({8, 5});                         // 8 samples: each rank takes 4, in 2 micro-steps of 2
  auto loss_of = [&](const at::Tensor& x) { return (torch::tanh(x.matmul(w1.t())).matmul(w2.t())).pow(2).sum(); };
  GradientBucketer buckets(comm, {w1, w2, unused}, /*bucket_bytes=*/64);  // tiny buckets: several
  for (int micro = 0; micro < 2; ++micro) {
    buckets.begin_backward(micro == 1);
    loss_of(data.narrow(0, env.rank * 4 + micro * 2, 2)).backward();
  }
  buckets.finish();
  // Reference: the gradient of the whole batch on one process.
  auto r1 = w1.detach().clone().requires_grad_(true), r2 = w2.detach().clone().requires_grad_(true);
  (torch::tanh(data.matmul(r1.t())).matmul(r2.t())).pow(2).sum().backward();
  bool ok = buckets.buckets() > 1 && torch::allclose(w1.grad(), r1.grad(), 1e-5, 1e-6) &&
            torch::allclose(w2.grad(), r2.grad(), 1e-5, 1e-6) && unused.grad().defined() &&
            unused.grad().abs().sum().item<double>() == 0;
  write_result(ok ? "match" : "differ");
  return ok ? 0 : 1;
}

int worker_mismatch() {
  auto env = distributed::detect_dist_env();
  auto comm = make_communicator(env, short_timeout());
  try {
    comm->check_same("the dataset", uint64_t(env.rank) + 7);
    write_result("no error");
    return 0;
  } catch (const BadInput& e) {
    write_result(e.what());
    return 1;
  }
}

int worker_straggler() {
  auto env = distributed::detect_dist_env();
  auto comm = make_communicator(env, short_timeout());
  if (env.rank == 1) {
    std::this_thread::sleep_for(std::chrono::seconds(60));  // never joins the all-reduce
    return 0;
  }
  std::vector<at::Tensor> t = {torch::ones({1})};
  comm->all_reduce_sum(t);  // must time out and throw
  return 0;
}

struct WorkerDispatch {
  WorkerDispatch() {
    const char* w = std::getenv("BERTPT_DIST_WORKER");
    if (!w || !distributed::launched_by_bertpt()) return;
    std::string name = w;
    int rc = 2;
    try {
      if (name == "collectives") rc = worker_collectives();
      if (name == "buckets") rc = worker_buckets();
      if (name == "mismatch") rc = worker_mismatch();
      if (name == "straggler") rc = worker_straggler();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "worker %s: %s\n", name.c_str(), e.what());
      rc = 3;
    }
    std::_Exit(rc);
  }
};
WorkerDispatch dispatch;

}  // namespace
}  // namespace bertpt::distributed
