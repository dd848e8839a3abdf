#include "perf/scaling.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/error.h"
#include "perf/cost.h"

namespace bertpt::perf {

ScalingPoint project_step(const ScalingInput& in, const Interconnect& net) {
  const double G = in.devices_per_node, N = in.nodes, B = in.gradient_bytes;
  ScalingPoint p;
  p.devices = in.nodes * in.devices_per_node;
  if (p.devices > 1 && B > 0) {
    const double buckets = std::max(1.0, std::ceil(B / in.bucket_bytes));
    const double intra = G > 1 ? 2 * (G - 1) / G * B / net.intra_node_bytes_per_sec : 0;
    const double inter = N > 1 ? 2 * (N - 1) / N * B / net.inter_node_bytes_per_sec : 0;
    const double latency = buckets * (2 * (G - 1) + 2 * std::ceil(std::log2(N))) * net.latency_sec;
    p.comm_sec = intra + inter + latency;
    p.exposed_sec = std::max(p.comm_sec / buckets, p.comm_sec - in.backward_share * in.compute_sec);
  }
  p.step_sec = in.compute_sec + p.exposed_sec;
  p.efficiency = p.step_sec > 0 ? in.compute_sec / p.step_sec : 1;
  return p;
}

double parse_bandwidth(const std::string& text, const std::string& flag) {
  const size_t split = text.find_first_of("KMGTBb");  // "400" "Gbps"
  const auto bad = [&] {
    return BadInput(flag + " '" + text + "' is not a bandwidth", "e.g. 400Gbps (bits) or 450GB/s (bytes), per second");
  };
  if (split == 0 || split == std::string::npos) throw bad();
  const double v = parse_positive_number(text.substr(0, split), flag);
  std::string unit = text.substr(split);
  if (unit.size() > 2 && (unit.ends_with("/s") || unit.ends_with("ps"))) unit.resize(unit.size() - 2);  // "Gbps"
  const std::string prefixes = "KMGT";  // decimal, as link speeds are quoted
  const size_t p = prefixes.find(unit[0]);
  const double scale = p == std::string::npos ? 1 : std::pow(1e3, double(p + 1));
  const std::string rest = p == std::string::npos ? unit : unit.substr(1);
  if (rest == "B") return v * scale;
  if (rest == "b" || rest == "bit") return v * scale / 8;
  throw bad();
}

}  // namespace bertpt::perf
