// Model FLOPs of BERT training and the peak they are compared with (MFU), shared by `bertpt train`
// and `bertpt bench`.
//
// FLOPs of one training step (docs/training.md, "MFU"), forward + backward = 3 x forward:
//   6 · N_matmul · tokens  +  12 · L · H · S · tokens
// (ModernBERT: N_matmul has the GeGLU MLP's 3·H·I per layer, and a sliding-window layer's query
// attends to about local_attention + 1 keys instead of S: its attention term counts those.)
// where N_matmul counts the weights used in matrix multiplies (Q, K, V, attention output,
// intermediate and output dense of every layer; embeddings are lookups and do not count) and the
// second term is the attention score and context matmuls (Q·Kᵀ and P·V: 2·2·S·H per token and layer
// forward). The MLM head (transform H×H + tied decoder V×H) runs only at the masked positions with
// the sparse head, so it is counted at `predicted` positions, not at every token. With the head at
// every position, BERT-base (V = 32,000) gives ≈ 86 GFLOP per 128-token sequence and ≈ 367 GFLOP per
// 512-token sequence, the guide's figures.
#pragma once

#include <cstdint>
#include <string>

#include "model/bert_config.h"

namespace bertpt::perf {

struct BertFlops {
  double encoder_matmul_params = 0;  // L · (4·H² + 2·H·I); ModernBERT L · (4·H² + 3·H·I)
  double head_matmul_params = 0;     // H² + V·H
  double layers = 0, hidden = 0;
  double sliding_layers = 0, half_window = 0;  // ModernBERT's sliding-window attention layers

  explicit BertFlops(const model::BertConfig& config);
  // FLOPs of forward + backward over `sequences` sequences of `seq_len` tokens with `predicted`
  // positions going through the MLM head.
  double train_flops(double sequences, double seq_len, double predicted) const;
  // Keys a query attends to, on average over the positions of a `seq_len` sequence.
  double mean_keys_per_query(double seq_len, bool sliding) const;
  // Same, with the head at every position (the dense head; the guide's convention).
  double train_flops_dense_head(double sequences, double seq_len) const {
    return train_flops(sequences, seq_len, sequences * seq_len);
  }
};

// The FLOP/s an MFU figure is relative to.
struct PeakFlops {
  double flops_per_sec = 0;
  std::string source;  // "measured bf16 GEMM 2048x768x3072 on 2 threads", "table: NVIDIA H100 bf16 dense", ...
};

// Peak dense throughput of known accelerators for `bf16` (else fp32 without TF32), from the vendor
// data sheets: H100/H200 SXM 989 TFLOP/s bf16, A100 312, V100 125 (fp16 tensor cores), L4 121,
// A10 125. 0 when `device_name` is not in the table.
double known_accelerator_peak(const std::string& device_name, bool bf16);

// Measures the GEMM rate LibTorch reaches on `device` ("cpu", "cuda:0") in `dtype_bf16` or fp32
// with the current thread settings: a [2048, 768] x [768, 3072] product repeated for about
// `seconds` (after a warm-up), the best of five rounds. This is the CPU "peak" for MFU: the rate the
// hardware + LibTorch actually deliver for the dominant op of a BERT step.
double measure_gemm_flops(const std::string& device, bool bf16, double seconds = 0.6);

// The peak for MFU: `override_tflops` when > 0; on CUDA the table above (by the device name), else
// a measured GEMM rate; on CPU the measured GEMM rate.
PeakFlops peak_flops(const std::string& device, bool bf16, double override_tflops = 0);

}  // namespace bertpt::perf
