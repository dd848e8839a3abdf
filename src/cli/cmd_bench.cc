// `bertpt bench`: measured training throughput and MFU on this hardware (src/mlm/bench.h).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/dist_flags.h"
#include "cli/train_commands.h"
#include "common/atomic_file.h"
#include "common/error.h"

#include "distributed/process_group.h"
#include "mlm/bench.h"

namespace bertpt::cli {

namespace {

// "8,16,32" -> {8, 16, 32}
std::vector<int64_t> parse_list(const std::string& text, const char* flag) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    try {
      size_t used = 0;
      long long v = std::stoll(item, &used);
      if (used != item.size() || v <= 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw BadInput(std::string(flag) + " '" + text + "': '" + item + "' is not a positive number", "e.g. 8,16,32");
    }
  }
  if (out.empty()) throw BadInput(std::string(flag) + " is empty");
  return out;
}

// The human-readable report: the job, the FLOP formula, one line per row.
void print_table(const mlm::BenchOptions& b, const mlm::BenchResult& r) {
  std::printf("%s, %s, %s x %d rank%s; peak %.1f GFLOP/s (%s)\n", b.model.c_str(), b.precision.c_str(),
              b.device.c_str(), r.world_size, r.world_size > 1 ? "s" : "", r.peak_flops / 1e9, r.peak_source.c_str());
  std::printf("FLOPs per step: %s\n", r.flop_formula.c_str());
  if (b.padding > 0) {
    std::printf("padded batches (--padding %g): tokens/s and FLOPs count every position, padding included\n",
                b.padding);
  }
  std::printf("%7s %6s %12s %18s %10s %12s %12s %7s\n", "seq_len", "batch", "step (s)", "min..max (s)", "seq/s",
              "tokens/s", "GFLOP/s", "MFU");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    if (row.out_of_memory || !row.error.empty()) {
      std::printf("%7lld %6lld   %s\n", (long long)row.seq_len, (long long)row.batch,
                  row.out_of_memory ? "out of memory (try a smaller batch, or --grad-accum in train)"
                                    : row.error.c_str());
      continue;
    }
    std::printf("%7lld %6lld %12.4f %8.4f..%-8.4f %10.2f %12.1f %12.1f %6.1f%%%s\n", (long long)row.seq_len,
                (long long)row.batch, row.step_median_sec, row.step_min_sec, row.step_max_sec, row.seq_per_sec,
                row.tokens_per_sec, row.flops_per_sec / 1e9, 100 * row.mfu,
                i == r.fastest && r.rows.size() > 1 ? "  <- fastest" : "");
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    DistFlags dist;
    mlm::BenchOptions bench;
    std::string seq_lens = "128", batches = "32", out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("bench",
                                 "Measured training throughput, model FLOP/s and MFU of a BERT on this hardware");
  cmd->add_option("--model", o->bench.model, "Preset (bert-tiny ... bert-large) or config.json")->capture_default_str();
  cmd->add_option("--seq-len", o->seq_lens, "Sequence length(s), comma-separated for a sweep")->capture_default_str();
  cmd->add_option("--per-device-batch-size", o->batches, "Batch size(s), comma-separated for a sweep")
      ->capture_default_str();
  cmd->add_option("--grad-accum", o->bench.grad_accum,
                  "Micro-batches per optimizer step, as train's --grad-accum (sequences/s count all of them)")
      ->capture_default_str();
  cmd->add_option("--precision", o->bench.precision, "bf16 or fp32")->capture_default_str();
  cmd->add_option("--device", o->bench.device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--threads", o->bench.threads, "CPU threads (0: all)")->capture_default_str();
  cmd->add_option("--warmup-steps", o->bench.warmup_steps, "Untimed steps first")->capture_default_str();
  cmd->add_option("--steps", o->bench.steps, "Timed steps (median and spread reported)")->capture_default_str();
  cmd->add_option("--vocab-size", o->bench.vocab_size, "Vocabulary of the synthetic data (presets)")
      ->capture_default_str();
  cmd->add_option(
      "--data", o->bench.data,
      "A prepared dataset: train's batches (its order at the default --seed, its masking) instead of synthetic ones");
  cmd->add_option("--padding", o->bench.padding,
                  "Padded batches: row r of B ends in floor(F*T*r/(B-1)) pad tokens (F/2 of positions on average)")
      ->capture_default_str();
  cmd->add_option("--peak-tflops", o->bench.peak_tflops,
                  "Peak TFLOP/s for MFU (default: the GEMM rate measured now on CPU, the known peak of the GPU)");
  cmd->add_option("--out", o->out, "Also write the result as JSON to this file (input of bertpt cost --bench)");
  cmd->add_option("--profile", o->bench.profile,
                  "After the timed steps, one more step under LibTorch's profiler, saved as a Chrome trace to this "
                  "file (operators' self times; bench/profile-step.sh compares it with transformers')");
  add_dist_flags(cmd, o->dist);
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    launch_workers_if_asked(o->dist, o->common.quiet);
    mlm::BenchOptions b = o->bench;
    b.seq_lens = parse_list(o->seq_lens, "--seq-len");
    b.batch_sizes = parse_list(o->batches, "--per-device-batch-size");
    nlohmann::json what = {{"model", b.model},         {"seq", b.seq_lens},    {"batch", b.batch_sizes},
                           {"precision", b.precision}, {"steps", b.steps},     {"warmup", b.warmup_steps},
                           {"data", b.data},           {"padding", b.padding}, {"grad_accum", b.grad_accum}};
    auto collectives = distributed::join_process_group(o->dist.timeout_seconds, b.device, b.threads,
                                                       "the bench options", what);
    b.collectives = collectives.get();
    mlm::BenchResult r = mlm::run_bench(b);
    if (collectives && collectives->rank() != 0) return;  // rank 0 reports for the job
    nlohmann::json j = r.to_json(b);
    if (!o->out.empty()) write_file_atomic(o->out, j.dump(2) + "\n");
    if (o->common.json) {
      print_json(j);
      return;
    }
    print_table(b, r);
  });
}

}  // namespace bertpt::cli
