// Training-step throughput of a masked LM (BERT or ModernBERT, by --model) next to LibTorch's own GEMM rate, measured
// in the same process (this machine is shared and noisy: compare ratios, take medians).
//
//   model_bench [--model bert-base] [--batch 16] [--seq 128] [--precision bf16|fp32]
//               [--steps 5] [--warmup 1] [--threads N (default: all available CPUs)] [--head sparse|dense]
//               [--optimizer]
//               [--attention auto|fused|explicit] [--no-dropout] [--padding F] [--padded-attention]
//               [--json] [--profile trace.json]
//
// --padded-attention: ModernBERT's attention over a padded batch on the [B, T] layout under the mask
// instead of variable-length (ModernBertModelImpl::varlen_attention).
//
// Model FLOPs follow docs/training.md ("MFU"): 6 · N_matmul · tokens + 12 · L · H · S · tokens, where the
// encoder's N_matmul = L · (4H² + 2HI) counts at every token and the MLM head's (H² + V·H) only at
// the predicted positions when the head is sparse ("sparse head convention"); the dense-head
// equivalent is printed too.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/optim/adamw.h>

#include <sys/resource.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "mlm/bench.h"
#include "model/architecture.h"
#include "model/cpu_runtime.h"
#include "model/modernbert.h"
#include "model/torch_compat.h"

using namespace bertpt;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds used by this process (all threads). On a shared, oversubscribed machine wall time
// counts the time other processes hold the cores; CPU time does not, so with --threads 1 it is a
// stable measure of the work itself. (With more threads it also counts OpenMP spin-waiting.)
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Timing {
  double wall, cpu;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// GFLOP/s of at::mm for [m, k] x [k, n] in `dtype` (wall and CPU time), median of `reps`.
Timing gemm_gflops(at::ScalarType dtype, int64_t m, int64_t k, int64_t n, int reps) {
  at::Tensor a = at::randn({m, k}).to(dtype), b = at::randn({k, n}).to(dtype);
  at::mm(a, b);
  std::vector<double> wall, cpu;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    at::mm(a, b);
    cpu.push_back(cpu_seconds() - c0);
    wall.push_back(seconds_since(t0));
  }
  const double f = 2.0 * m * k * n / 1e9;
  return {f / median(wall), f / median(cpu)};
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_name = "bert-base", precision = "bf16", head = "sparse", attention = "auto", profile;
  int64_t batch = 16, seq = 128;
  int steps = 5, warmup = 1, threads = 0;
  bool json = false, optimizer = false, no_dropout = false, padded_attention = false;
  double padding = 0.0;  // --padding F: row r is padded over its last F·r/(B-1) of positions (mean F/2)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--model") model_name = next();
    else if (a == "--batch") batch = std::stoll(next());
    else if (a == "--seq") seq = std::stoll(next());
    else if (a == "--precision") precision = next();
    else if (a == "--steps") steps = std::stoi(next());
    else if (a == "--warmup") warmup = std::stoi(next());
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--head") head = next();
    else if (a == "--attention") attention = next();
    else if (a == "--optimizer") optimizer = true;
    else if (a == "--no-dropout") no_dropout = true;
    else if (a == "--padding") padding = std::stod(next());
    else if (a == "--padded-attention") padded_attention = true;
    else if (a == "--json") json = true;
    else if (a == "--profile") profile = next();
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 1;
    }
  }
  model::use_block_cache_for_cpu_tensors();
  at::set_num_threads(threads > 0 ? threads : model::available_cpus());
  const bool bf16 = precision == "bf16";

  model::BertConfig config = model::resolve_model_config(model_name);
  if (no_dropout) config.hidden_dropout_prob = config.attention_probs_dropout_prob = 0.0;
  torch::manual_seed(0);
  std::shared_ptr<model::MaskedLanguageModel> net = model::make_masked_lm(config);
  net->train();
  net->set_attention_kernel(attention == "fused"      ? model::AttentionKernel::Fused
                            : attention == "explicit" ? model::AttentionKernel::Explicit
                                                      : model::AttentionKernel::Auto);
  if (auto modern = std::dynamic_pointer_cast<model::ModernBertForMaskedLMImpl>(net)) {
    modern->model->varlen_attention = !padded_attention;
  }
  const model::MlmHead mlm_head = head == "dense" ? model::MlmHead::Dense : model::MlmHead::Sparse;
  std::unique_ptr<torch::optim::AdamW> opt;
  if (optimizer) opt = std::make_unique<torch::optim::AdamW>(net->parameters(), torch::optim::AdamWOptions(5e-5));

  // Random tokens, 15% of positions predicted (the masking itself is not what we time).
  at::Tensor ids = at::randint(5, config.vocab_size, {batch, seq}, at::kLong);  // [B, T]
  at::Tensor pick = at::rand({batch, seq}).lt(0.15);                            // [B, T]
  at::Tensor labels = at::where(pick, ids, at::full_like(ids, -100));           // [B, T]
  at::Tensor mask;                                                              // [B, T] with --padding
  if (padding > 0) mask = mlm::pad_row_tails(ids, labels, padding);             // bertpt bench's rule

  // GEMM rate: the shape of BERT's FFN GEMM at this batch ([B·T, H] x [H, I]).
  const int64_t N = batch * seq;
  Timing gemm_bf16 = gemm_gflops(at::kBFloat16, N, config.hidden_size, config.intermediate_size, 5);
  Timing gemm_fp32 = gemm_gflops(at::kFloat, std::min<int64_t>(N, 512), config.hidden_size, config.intermediate_size,
                                 3);

  // One training step. Gradients set to none rather than zeroed: backward then hands its buffers to
  // .grad without a fill and an add (what zero_grad(set_to_none=True) does in PyTorch 2.x). `t0`:
  // the step's start, for the forward's seconds; the optimizer's phase is a range of its own for
  // bench/profile_step.py.
  auto train_step = [&](Clock::time_point t0, double& forward_seconds) {
    for (auto& p : net->parameters()) p.mutable_grad() = at::Tensor();
    model::MlmOutput out;
    {
      torch_compat::AutocastGuard guard(c10::DeviceType::CPU, at::kBFloat16, bf16);
      out = net->forward(ids, mask, {}, labels, mlm_head);
    }
    at::Tensor loss = out.loss_sum / static_cast<double>(std::max<int64_t>(out.num_masked, 1));
    forward_seconds = seconds_since(t0);
    loss.backward();
    if (opt) {
      RECORD_USER_SCOPE("step.optimizer");
      opt->step();
    }
    return out;
  };

  if (!profile.empty()) {
    // One extra step (with --optimizer, AdamW's update too) under LibTorch's profiler (chrome trace),
    // after two warm-up steps (the first steps grow the heap: their page faults are not the steady state).
    for (int s = 0; s < 3; ++s) {
      std::unique_ptr<torch::autograd::profiler::RecordProfile> rec;
      if (s == 2) rec = std::make_unique<torch::autograd::profiler::RecordProfile>(profile);
      double unused;
      train_step(Clock::now(), unused);
    }
  }
  std::vector<double> times, fwd_times, cpu_times;
  int64_t masked = 0;
  for (int s = 0; s < warmup + steps; ++s) {
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    double fwd = 0;
    const model::MlmOutput out = train_step(t0, fwd);
    double dt = seconds_since(t0);
    double dc = cpu_seconds() - c0;
    masked = out.num_masked;
    if (std::getenv("BERTPT_BENCH_VERBOSE")) {
      rusage ru{};
      getrusage(RUSAGE_SELF, &ru);
      std::fprintf(stderr, "  step %d: %.3f s wall, %.3f s CPU, %ld minor faults so far\n", s, dt, dc, ru.ru_minflt);
    }
    if (s >= warmup) {
      cpu_times.push_back(dc);
      times.push_back(dt);
      fwd_times.push_back(fwd);
    }
  }
  const double t = median(times), t_fwd = median(fwd_times), t_cpu = median(cpu_times);
  const double L = config.num_hidden_layers, H = config.hidden_size, I = config.intermediate_size,
               V = config.vocab_size;
  const double tokens = static_cast<double>(batch * seq);
  const double n_encoder = L * (4 * H * H + 2 * H * I), n_head = H * H + V * H;
  const double head_tokens = mlm_head == model::MlmHead::Sparse ? static_cast<double>(masked) : tokens;
  const double flops = 6 * n_encoder * tokens + 6 * n_head * head_tokens + 12 * L * H * seq * tokens;
  const double flops_dense = 6 * (n_encoder + n_head) * tokens + 12 * L * H * seq * tokens;
  const double model_gflops = flops / t / 1e9;
  const Timing gemm = bf16 ? gemm_bf16 : gemm_fp32;
  const double model_gflops_cpu = flops / t_cpu / 1e9;
  if (json) {
    std::printf(
        "{\"model\":\"%s\",\"precision\":\"%s\",\"batch\":%lld,\"seq\":%lld,\"threads\":%d,\"head\":\"%s\","
        "\"step_sec\":%.4f,\"step_cpu_sec\":%.4f,\"forward_sec\":%.4f,\"tokens_per_sec\":%.1f,"
        "\"model_gflop_per_step\":%.2f,\"model_gflops\":%.1f,\"model_gflops_cpu\":%.1f,\"dense_equiv_gflops\":%.1f,"
        "\"gemm_bf16_gflops\":%.1f,\"gemm_bf16_gflops_cpu\":%.1f,\"gemm_fp32_gflops\":%.1f,\"gemm_fp32_gflops_cpu\":%."
        "1f,"
        "\"ratio_to_gemm\":%.3f,\"ratio_to_gemm_cpu\":%.3f,\"torch\":\"%s\"}\n",
        model_name.c_str(), precision.c_str(), (long long)batch, (long long)seq, at::get_num_threads(), head.c_str(), t,
        t_cpu, t_fwd, tokens / t, flops / 1e9, model_gflops, model_gflops_cpu, flops_dense / t / 1e9, gemm_bf16.wall,
        gemm_bf16.cpu, gemm_fp32.wall, gemm_fp32.cpu, model_gflops / gemm.wall, model_gflops_cpu / gemm.cpu,
        torch_compat::torch_version().c_str());
  } else {
    std::printf("%s %s batch %lld seq %lld threads %d head %s%s\n", model_name.c_str(), precision.c_str(),
                (long long)batch, (long long)seq, at::get_num_threads(), head.c_str(), optimizer ? " +AdamW" : "");
    std::printf("  step %.3f s wall (forward %.3f s), %.3f s CPU; %.0f tokens/s, %.2f sequences/s\n", t, t_fwd, t_cpu,
                tokens / t, batch / t);
    std::printf("  model FLOPs %.1f GFLOP/step (sparse-head convention; dense-head equivalent %.1f)\n", flops / 1e9,
                flops_dense / 1e9);
    std::printf("  wall: model %.1f GFLOP/s | GEMM bf16 %.1f, fp32 %.1f GFLOP/s | model/GEMM %.2f\n", model_gflops,
                gemm_bf16.wall, gemm_fp32.wall, model_gflops / gemm.wall);
    std::printf("  CPU time: model %.1f GFLOP/CPU-s | GEMM bf16 %.1f, fp32 %.1f | model/GEMM %.2f\n", model_gflops_cpu,
                gemm_bf16.cpu, gemm_fp32.cpu, model_gflops_cpu / gemm.cpu);
  }
  return 0;
}
