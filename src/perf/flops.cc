#include "perf/flops.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "common/error.h"

namespace bertpt::perf {

BertFlops::BertFlops(const model::BertConfig& c) {
  const double H = double(c.hidden_size), I = double(c.intermediate_size), V = double(c.vocab_size);
  layers = double(c.num_hidden_layers);
  hidden = H;
  // ModernBERT's GeGLU MLP: Wi is [2I, H], Wo [H, I].
  const double mlp = (c.is_modernbert() ? 3 : 2) * H * I;
  encoder_matmul_params = layers * (4 * H * H + mlp);
  head_matmul_params = H * H + V * H;
  if (c.is_modernbert()) {
    for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
      if (!c.modern.is_global_layer(i)) sliding_layers += 1;
    }
    half_window = double(c.modern.local_attention / 2);
  }
}

double BertFlops::mean_keys_per_query(double seq_len, bool sliding) const {
  const double h = half_window;
  if (!sliding || h >= seq_len - 1) return seq_len;
  // 2h + 1 keys, less the h(h + 1)/2 a window loses at each end of the sequence.
  return (2 * h + 1) - h * (h + 1) / seq_len;
}

double BertFlops::train_flops(double sequences, double seq_len, double predicted) const {
  const double tokens = sequences * seq_len;
  const double keys = (layers - sliding_layers) * mean_keys_per_query(seq_len, false) +
                      sliding_layers * mean_keys_per_query(seq_len, true);
  return 6 * encoder_matmul_params * tokens + 12 * hidden * keys * tokens + 6 * head_matmul_params * predicted;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The model name of the first NVIDIA GPU, from the driver's /proc files (no CUDA headers needed, so
// this builds the same against CPU and CUDA LibTorch). Empty when there is none.
std::string nvidia_gpu_name() {
  std::error_code ec;
  const std::filesystem::path dir = "/proc/driver/nvidia/gpus";
  if (!std::filesystem::is_directory(dir, ec)) return "";
  std::vector<std::filesystem::path> gpus;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) gpus.push_back(e.path());
  std::sort(gpus.begin(), gpus.end());
  for (const auto& g : gpus) {
    std::ifstream in(g / "information");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("Model:", 0) == 0) {
        size_t b = line.find_first_not_of(" \t", 6);
        return b == std::string::npos ? "" : line.substr(b);
      }
    }
  }
  return "";
}

}  // namespace

double known_accelerator_peak(const std::string& device_name, bool bf16) {
  const std::string n = lower(device_name);
  struct Row {
    const char* key;
    double bf16_tflops, fp32_tflops;
  };
  // Dense (no sparsity) vendor peaks; SXM parts. fp32 is the non-tensor-core rate, since LibTorch
  // does not use TF32 for matmuls by default.
  // NVIDIA: the data sheets of each part (V100 has no bf16: its fp16 tensor-core rate). Intel Gaudi:
  // the Gaudi 3 white paper (2024) gives the bf16 MME rates of Gaudi 2 and 3 and no fp32 figure to
  // compare (0: unknown); first-generation Gaudi (dl1.24xlarge, the guide's) has no published bf16
  // peak, so MFU there needs --peak-tflops. LibTorch cannot drive Gaudi itself: the rows serve runs
  // whose device name is given, and the documentation (docs/cost.md).
  static const Row rows[] = {{"h200", 989, 67},    {"h100", 989, 67},  {"a100", 312, 19.5}, {"v100", 125, 15.7},
                             {"l4", 121, 30.3},    {"a10", 125, 31.2}, {"l40", 181, 90.5},  {"gaudi3", 1835, 0},
                             {"gaudi 3", 1835, 0}, {"gaudi2", 432, 0}, {"gaudi 2", 432, 0}};
  for (const auto& r : rows) {
    if (n.find(r.key) != std::string::npos) return (bf16 ? r.bf16_tflops : r.fp32_tflops) * 1e12;
  }
  return 0;
}

double measure_gemm_flops(const std::string& device, bool bf16, double seconds) {
  using Clock = std::chrono::steady_clock;
  const int64_t K = 768, N = 3072;  // B·T tokens x H -> I: the largest GEMM of a BERT-base layer
  auto opts = at::TensorOptions().device(at::Device(device)).dtype(bf16 ? at::kBFloat16 : at::kFloat);
  // A CPU without a fast kernel for the type (bf16 without AVX512-BF16/AMX falls back to a scalar
  // loop) takes tens of seconds for one full-size GEMM: one eighth of it first, and its rate when
  // that alone uses up a tenth of the budget, so that the measurement stays within it everywhere.
  {
    at::Tensor a = at::randn({256, K}, opts), b = at::randn({K, N}, opts), c = at::empty({256, N}, opts);
    const auto t0 = Clock::now();
    at::mm_out(c, a, b);
    (void)c.select(0, 0).select(0, 0).item<float>();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    if (dt >= seconds / 10) return 2.0 * 256 * double(K) * double(N) / dt;
  }
  const int64_t M = 2048;
  at::Tensor a = at::randn({M, K}, opts), b = at::randn({K, N}, opts), c = at::empty({M, N}, opts);
  auto sync = [&] { (void)c.select(0, 0).select(0, 0).item<float>(); };  // waits for queued GPU work
  at::mm_out(c, a, b);  // warm-up: kernel selection, allocation, thread pool start
  sync();
  auto time_rounds = [&](int64_t iters) {
    auto t0 = Clock::now();
    for (int64_t i = 0; i < iters; ++i) at::mm_out(c, a, b);
    sync();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  // Grow the repeat count until one timed round takes a tenth of the budget.
  int64_t iters = 1;
  double elapsed = 0;
  for (;;) {
    elapsed = time_rounds(iters);
    if (elapsed >= seconds / 10 || iters >= (int64_t(1) << 20)) break;
    iters *= 2;
  }
  // Then the best of several rounds: the rate the hardware reaches, not a round slowed by a
  // neighbour on a shared machine (a low peak would inflate MFU, even above 100%).
  const int64_t per_round = std::max<int64_t>(iters, int64_t(seconds / 6 / std::max(elapsed / double(iters), 1e-9)));
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    best = std::max(best, 2.0 * double(M) * double(K) * double(N) * double(per_round) / time_rounds(per_round));
  }
  return best;
}

PeakFlops peak_flops(const std::string& device, bool bf16, double override_tflops) {
  PeakFlops p;
  const char* dt = bf16 ? "bf16" : "fp32";
  if (override_tflops > 0) {
    p.flops_per_sec = override_tflops * 1e12;
    p.source = "given (--peak-tflops)";
    return p;
  }
  if (device.rfind("cuda", 0) == 0) {
    std::string name = nvidia_gpu_name();
    double known = known_accelerator_peak(name, bf16);
    if (known > 0) {
      p.flops_per_sec = known;
      p.source = std::string("vendor peak of ") + name + " (" + dt + " dense)";
      return p;
    }
    p.flops_per_sec = measure_gemm_flops(device, bf16);
    p.source = std::string("measured ") + dt + " GEMM 2048x768x3072 on " + device +
               (name.empty() ? "" : " (" + name + ")");
    return p;
  }
  p.flops_per_sec = measure_gemm_flops(device, bf16);
  p.source = std::string("measured ") + dt + " GEMM 2048x768x3072 on " + std::to_string(at::get_num_threads()) +
             " CPU threads";
  return p;
}

}  // namespace bertpt::perf
