// --dump-batches DIR: every micro-batch a task feeds the model, written as NumPy .npy files so another
// implementation (a plain PyTorch loop over transformers, tests/peer) can train on exactly the same
// batches:
//   DIR/step-00000001/rank-0/micro-0/<name>.npy
// one directory per optimizer step (the 1-based step of metrics.jsonl), rank and micro-batch; each
// array int64, C order (io/npy.h). The names are the task's (docs/training.md, "Dumping batches").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

namespace bertpt::engine {

class BatchDump {
 public:
  // An empty `dir` disables dumping (write() does nothing).
  BatchDump(std::string dir, int rank) : dir_(std::move(dir)), rank_(rank) {}
  bool enabled() const { return !dir_.empty(); }
  // Writes the int64 CPU tensors (name, tensor) of micro-batch `micro` of optimizer step `step`
  // (1-based). An undefined tensor is skipped.
  void write(int64_t step, int64_t micro, const std::vector<std::pair<std::string, at::Tensor>>& arrays) const;

 private:
  std::string dir_;
  int rank_ = 0;
};

}  // namespace bertpt::engine
