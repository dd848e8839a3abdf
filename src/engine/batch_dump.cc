#include "engine/batch_dump.h"

#include <cstdio>
#include <filesystem>

#include <ATen/ATen.h>

#include "io/npy.h"

namespace bertpt::engine {

namespace fs = std::filesystem;

void BatchDump::write(int64_t step, int64_t micro,
                      const std::vector<std::pair<std::string, at::Tensor>>& arrays) const {
  if (!enabled()) return;
  char name[32];
  std::snprintf(name, sizeof name, "step-%08lld", (long long)step);
  const fs::path dir = fs::path(dir_) / name / ("rank-" + std::to_string(rank_)) / ("micro-" + std::to_string(micro));
  fs::create_directories(dir);
  for (const auto& [array_name, tensor] : arrays) {
    if (!tensor.defined()) continue;
    const at::Tensor t = tensor.to(at::kCPU, at::kLong).contiguous();
    io::write_npy_int64((dir / (array_name + ".npy")).string(), t.sizes().vec(), t.data_ptr<int64_t>());
  }
}

}  // namespace bertpt::engine
