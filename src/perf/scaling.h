// Data-parallel scaling on paper: the step time of N nodes x G devices projected from one device's
// measured step, the gradient bytes all-reduced per step and the interconnect (docs/distributed.md,
// "Scaling model", states the model and checks it against 2-rank Gloo runs of this machine).
//
//   B          gradient bytes per step (fp32: 4 x parameters), in buckets of `bucket_bytes` (k buckets)
//   t_intra    = 2 (G - 1) / G x B / intra-node bandwidth per device     (ring within a node)
//   t_inter    = 2 (N - 1) / N x B / inter-node bandwidth per node       (between nodes, all NICs)
//   t_latency  = k x (2 (G - 1) + 2 ceil(log2 N)) x latency              (ring steps, tree across nodes)
//   t_comm     = t_intra + t_inter + t_latency
//   exposed    = max(t_comm / k, t_comm - backward_share x t_compute)    (buckets overlap the backward
//                pass, as bertpt's GradientBucketer and PyTorch DDP do; the last bucket cannot)
//   t_step     = t_compute + exposed;  efficiency = t_compute / t_step
#pragma once

#include <string>

namespace bertpt::perf {

struct Interconnect {
  double intra_node_bytes_per_sec = 0;  // per device, each direction (NVLink 4 via NVSwitch: 450e9)
  double inter_node_bytes_per_sec = 0;  // per node, each direction (400 Gbit/s: 50e9)
  double latency_sec = 5e-6;            // per step of a ring or tree
};

struct ScalingInput {
  double compute_sec = 0;     // one device's step (forward, backward, optimizer), no communication
  double gradient_bytes = 0;  // all-reduced per optimizer step
  double bucket_bytes = 25.0 * (1 << 20);
  double backward_share = 2.0 / 3.0;  // share of the step the all-reduce can hide behind
  int nodes = 1, devices_per_node = 1;
};

struct ScalingPoint {
  int devices = 1;
  double comm_sec = 0, exposed_sec = 0, step_sec = 0, efficiency = 1;
};

ScalingPoint project_step(const ScalingInput& in, const Interconnect& net);

// "400Gbps", "400Gbit/s", "450GB/s", "25GB/s", "1.6Tbps", "100MB/s" -> bytes per second. Throws
// BadInput naming `flag` and the value.
double parse_bandwidth(const std::string& text, const std::string& flag);

}  // namespace bertpt::perf
