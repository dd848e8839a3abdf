// The CPU thread pool: bertpt's own kernels and LibTorch's must be one OpenMP runtime, so that
// at::set_num_threads (what --threads sets) sizes both.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <ATen/Parallel.h>

#include "model/cpu_runtime.h"

namespace bertpt::model {
namespace {

TEST(CpuRuntime, BertptKernelsGetTheThreadCountLibTorchIsSetTo) {
  const int before = at::get_num_threads();
  for (int n : {1, 2, 3}) {
    at::set_num_threads(n);
    EXPECT_EQ(at::get_num_threads(), n);
    EXPECT_EQ(kernel_thread_team_size(), n) << "at::set_num_threads(" << n << ") did not reach bertpt's kernels";
  }
  at::set_num_threads(before);
}

TEST(CpuRuntime, OneOpenMpRuntimeIsLoaded) {
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::set<std::string> gomp;
  for (std::string line; std::getline(maps, line);) {
    const auto slash = line.find('/');
    if (slash != std::string::npos && line.find("libgomp", slash) != std::string::npos) gomp.insert(line.substr(slash));
  }
  ASSERT_FALSE(gomp.empty()) << "no libgomp mapped: is LibTorch's CPU backend OpenMP?";
  EXPECT_EQ(gomp.size(), 1u) << "two OpenMP runtimes: " << *gomp.begin() << " and " << *gomp.rbegin();
}

}  // namespace
}  // namespace bertpt::model
