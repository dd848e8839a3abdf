// `bertpt bench`: measured training throughput of a model on this hardware — warm-up steps, then
// timed steps of the real training step (forward with the sparse MLM head, backward, AdamW update)
// on synthetic or real batches; median and spread of the step time, sequences/s, tokens/s, model
// FLOP/s and MFU against a stated peak (flops.h). One row per (seq_len, batch) of a sweep.
//
// Data-parallel (`--nproc-per-node N`, or under torchrun/mpirun/srun): every rank runs the same
// step with the gradient all-reduce of `bertpt train` (c10d buckets overlapping backward). Rows
// then report the whole job: sequences/s and tokens/s summed over ranks, the step time of the
// slowest rank, and MFU against the sum of the ranks' peaks. An out-of-memory row on one rank ends
// a distributed sweep (the other ranks would wait for it), unlike a single-process sweep.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include <ATen/core/Tensor.h>
#include <string>
#include <vector>

namespace bertpt::engine {
class Collectives;
}

namespace bertpt::mlm {

struct BenchOptions {
  std::string model = "bert-base";
  std::vector<int64_t> seq_lens = {128};
  std::vector<int64_t> batch_sizes = {32};  // per device and micro-batch
  int64_t grad_accum = 1;                   // micro-batches per optimizer step, as train's --grad-accum
  std::string precision = "bf16";
  std::string device = "cpu";
  int threads = 0;
  int warmup_steps = 2;
  int steps = 5;
  double mlm_probability = 0.15;
  int64_t vocab_size = 32000;  // synthetic data (a model config file's own vocab_size wins)
  std::string data;            // a prepared dataset instead of synthetic batches
  // Padded batches, as fine-tuning's: row r of B ends in floor(padding · T · r / (B - 1)) pad tokens
  // (padding / 2 of the positions on average), masked out. 0: every position attended.
  double padding = 0;
  double peak_tflops = 0;  // 0: measured GEMM rate on CPU, known peak on GPU
  uint64_t seed = 34;
  // After the timed steps of the (one) row, one more step recorded by LibTorch's profiler into this
  // Chrome trace (engine/step_trace.h); rank 0's.
  std::string profile;
  engine::Collectives* collectives = nullptr;  // nullptr: one process
};

struct BenchRow {
  int64_t seq_len = 0, batch = 0;
  bool out_of_memory = false;
  std::string error;
  double step_median_sec = 0, step_min_sec = 0, step_max_sec = 0;
  double seq_per_sec = 0, tokens_per_sec = 0;
  double flops_per_step = 0, flops_per_sec = 0, mfu = 0;
  double masked_per_step = 0;
};

struct BenchResult {
  std::vector<BenchRow> rows;
  size_t fastest = 0;     // index of the row with the most tokens/s
  double peak_flops = 0;  // of all ranks together
  std::string peak_source;
  int world_size = 1;
  std::string flop_formula;
  int64_t parameters = 0;    // of the model: 4 bytes each is the fp32 gradient all-reduced per step
  double allreduce_sec = 0;  // with several ranks: the median time of one all-reduce of all gradients
  nlohmann::json to_json(const BenchOptions& options) const;
};

BenchResult run_bench(const BenchOptions& options);

// BenchOptions::padding's batches: pads the tail of each row of ids and labels ([B, T] int64, in
// place: id 0, label -100) and returns the [B, T] attention mask (int64, 1 = attend).
at::Tensor pad_row_tails(at::Tensor& ids, at::Tensor& labels, double padding);

}  // namespace bertpt::mlm
