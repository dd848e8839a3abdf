#include "cli/cost_scaling.h"

#include <cmath>
#include <cstdio>

#include "common/atomic_file.h"
#include "common/error.h"
#include "perf/cost.h"
#include "perf/scaling.h"

namespace bertpt::cli {

namespace {

// What the projection needs of a `bertpt bench --out` file.
struct MeasuredStep {
  double step_sec = 0;  // one optimizer step of `batch` sequences per device
  int64_t batch = 0;    // per device
  int world_size = 1;   // devices the bench ran on
  double gradient_bytes = 0;
};

MeasuredStep read_measured_step(const std::string& path) {
  const perf::BenchFile b = perf::read_bench_file(path);
  if (b.batch <= 0 || !(b.gradient_bytes > 0)) {
    throw BadInput(path + ": no positive \"world_size\", \"batch\" and \"gradient_bytes\" fields",
                   "--scale-nodes projects from a file written by bertpt bench --out (this version)");
  }
  MeasuredStep m;
  m.world_size = b.world_size;
  m.batch = b.batch;
  m.step_sec = double(m.batch) * m.world_size / b.seq_per_sec;
  m.gradient_bytes = b.gradient_bytes;
  return m;
}

std::string bandwidth_text(double bytes_per_sec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s (%.4g Gbit/s)", bytes_per_sec / 1e9, bytes_per_sec * 8 / 1e9);
  return buf;
}

nlohmann::json project_hardware(const ScalingFlags& f, const MeasuredStep& m, const perf::Interconnect& net,
                                const perf::Job& job, const ScalingHardware& hw) {
  nlohmann::json rows = nlohmann::json::array();
  for (int nodes : f.nodes) {
    perf::ScalingInput in;
    in.compute_sec = m.step_sec;
    in.gradient_bytes = m.gradient_bytes;
    in.backward_share = f.backward_share;
    in.nodes = nodes;
    in.devices_per_node = hw.devices;
    const perf::ScalingPoint p = perf::project_step(in, net);
    const double seq_per_sec = double(p.devices) * double(m.batch) / p.step_sec;
    const double hours = job.sequences() / seq_per_sec / 3600;
    rows.push_back({{"nodes", nodes},
                    {"devices", p.devices},
                    {"step_sec", p.step_sec},
                    {"allreduce_sec", p.comm_sec},
                    {"exposed_sec", p.exposed_sec},
                    {"efficiency", p.efficiency},
                    {"global_batch", double(p.devices) * double(m.batch)},
                    {"steps", std::ceil(job.sequences() / (double(p.devices) * double(m.batch)))},
                    {"seq_per_sec", seq_per_sec},
                    {"hours", hours},
                    {"dollars", hours * hw.price_per_hour * nodes}});
  }
  return {{"hardware", hw.name},
          {"devices_per_node", hw.devices},
          {"price_per_node_hour", hw.price_per_hour},
          {"rows", rows}};
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

void add_scaling_flags(CLI::App* cmd, ScalingFlags& f) {
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

nlohmann::json project_scaling(const ScalingFlags& f, const std::string& bench_path, const perf::Job& job,
                               const std::vector<ScalingHardware>& hardware, bool json) {
  const MeasuredStep m = read_measured_step(bench_path);
  perf::Interconnect net;
  net.intra_node_bytes_per_sec = perf::parse_bandwidth(f.intra_node, "--intra-node");
  net.inter_node_bytes_per_sec = perf::parse_bandwidth(f.inter_node, "--inter-node");
  net.latency_sec = f.latency_us * 1e-6;
  nlohmann::json out = {{"bench", bench_path},
                        {"measured_step_sec", m.step_sec},
                        {"per_device_batch", m.batch},
                        {"measured_world_size", m.world_size},
                        {"gradient_bytes", m.gradient_bytes},
                        {"intra_node_bytes_per_sec", net.intra_node_bytes_per_sec},
                        {"inter_node_bytes_per_sec", net.inter_node_bytes_per_sec},
                        {"latency_sec", net.latency_sec},
                        {"backward_share", f.backward_share},
                        {"hardware", nlohmann::json::array()}};
  for (const ScalingHardware& hw : hardware) out["hardware"].push_back(project_hardware(f, m, net, job, hw));
  if (json) return out;
  std::printf("\nscaling projection from %s: %.4g s per step of %lld sequences per device, measured on %d device%s%s\n",
              bench_path.c_str(), m.step_sec, (long long)m.batch, m.world_size, m.world_size == 1 ? "" : "s",
              m.world_size == 1 ? ""
                                : " (its all-reduce is inside the measured step: bench one device for compute alone)");
  std::printf(
      "assumed: fp32 gradients %.1f MB per step in buckets of 25 MiB; %s per device within a node, %s per "
      "node between nodes, %.3g us per ring/tree step; the all-reduce overlaps %.0f%% of the step\n",
      m.gradient_bytes / 1e6, bandwidth_text(net.intra_node_bytes_per_sec).c_str(),
      bandwidth_text(net.inter_node_bytes_per_sec).c_str(), f.latency_us, 100 * f.backward_share);
  std::printf(
      "the job's %.4g M sequences (steps x global batch) are kept: each device trains its measured batch, so "
      "the global batch grows with the devices and the steps shrink\n",
      job.sequences() / 1e6);
  for (const auto& p : out["hardware"]) print_projection(p);
  return out;
}

}  // namespace bertpt::cli
