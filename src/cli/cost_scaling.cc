#include "cli/cost_scaling.h"

#include <cstdio>
#include <string>

namespace bertpt::cli {

namespace {

std::string bandwidth_text(double bytes_per_sec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s (%.4g Gbit/s)", bytes_per_sec / 1e9, bytes_per_sec * 8 / 1e9);
  return buf;
}

void print_projection(const nlohmann::json& p) {
  std::printf("\n%s: %d devices per node, $%.4g per node-hour\n", p["hardware"].get<std::string>().c_str(),
              p["devices_per_node"].get<int>(), p["price_per_node_hour"].get<double>());
  std::printf("%6s %8s %10s %12s %10s %11s %13s %10s %10s %10s %14s\n", "nodes", "devices", "step-s", "allreduce-s",
              "exposed-s", "efficiency", "global-batch", "steps", "seq/s", "hours", "total $");
  for (const auto& r : p["rows"]) {
    std::printf("%6d %8d %10.4f %12.4f %10.4f %10.1f%% %13.0f %10.0f %10.1f %10.2f %14.2f\n", r["nodes"].get<int>(),
                r["devices"].get<int>(), r["step_sec"].get<double>(), r["allreduce_sec"].get<double>(),
                r["exposed_sec"].get<double>(), 100 * r["efficiency"].get<double>(), r["global_batch"].get<double>(),
                r["steps"].get<double>(), r["seq_per_sec"].get<double>(), r["hours"].get<double>(),
                r["dollars"].get<double>());
  }
}

}  // namespace

void add_scaling_flags(CLI::App* cmd, perf::ScalingQuery& f) {
  cmd->add_option("--scale-nodes", f.nodes,
                  "Project the job on these node counts (e.g. 1,8,64) of each hardware row from a one-device --bench, "
                  "through the data-parallel scaling model (docs/distributed.md)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--intra-node", f.intra_node, "With --scale-nodes: all-reduce bandwidth per device within a node")
      ->capture_default_str();
  cmd->add_option("--inter-node", f.inter_node, "With --scale-nodes: bandwidth per node between nodes (e.g. 3200Gbps)")
      ->capture_default_str();
  cmd->add_option("--latency-us", f.latency_us, "With --scale-nodes: latency of one step of a ring or tree, in us")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--backward-share", f.backward_share,
                  "With --scale-nodes: share of a step the gradient all-reduce can overlap (the backward pass)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

void print_scaling(const nlohmann::json& p, const perf::Job& job) {
  std::printf("job: %llu steps x %llu sequences x %u tokens = %.1f M sequences\n", (unsigned long long)job.steps,
              (unsigned long long)job.global_batch, job.seq_len, job.sequences() / 1e6);
  const int world = p["measured_world_size"];
  std::printf("\nscaling projection from %s: %.4g s per step of %lld sequences per device, measured on %d device%s%s\n",
              p["bench"].get<std::string>().c_str(), p["measured_step_sec"].get<double>(),
              (long long)p["per_device_batch"].get<int64_t>(), world, world == 1 ? "" : "s",
              world == 1 ? "" : " (its all-reduce is inside the measured step: bench one device for compute alone)");
  std::printf(
      "assumed: fp32 gradients %.1f MB per step in buckets of 25 MiB; %s per device within a node, %s per "
      "node between nodes, %.3g us per ring/tree step; the all-reduce overlaps %.0f%% of the step\n",
      p["gradient_bytes"].get<double>() / 1e6, bandwidth_text(p["intra_node_bytes_per_sec"]).c_str(),
      bandwidth_text(p["inter_node_bytes_per_sec"]).c_str(), p["latency_sec"].get<double>() * 1e6,
      100 * p["backward_share"].get<double>());
  std::printf(
      "the job's %.4g M sequences (steps x global batch) are kept: each device trains its measured batch, so "
      "the global batch grows with the devices and the steps shrink\n",
      job.sequences() / 1e6);
  for (const auto& hw : p["hardware"]) print_projection(hw);
}

}  // namespace bertpt::cli
