#include "perf/cost_report.h"

#include <cmath>
#include <map>
#include <optional>

#include "common/error.h"
#include "perf/scaling.h"

namespace bertpt::perf {

std::pair<uint32_t, Throughput> bench_throughput(const std::string& path) {
  const BenchFile b = read_bench_file(path);
  Throughput t;
  t.kind = Throughput::Kind::SeqPerSec;
  t.value = b.seq_per_sec;
  t.origin = "bench " + path;
  t.measured_devices = b.world_size;
  return {b.seq_len, t};
}

Throughput bench_throughput_at(const std::string& path, uint32_t seq_len) {
  const auto [measured_len, t] = bench_throughput(path);
  if (measured_len != seq_len) {
    throw BadInput(path + " was measured at seq_len " + std::to_string(measured_len) + " but the job uses " +
                       std::to_string(seq_len),
                   "bench at the job's --seq-len, or pass --seq-len to match");
  }
  return t;
}

std::vector<InstancePrice> price_table(const std::string& path) {
  return load_price_table(path.empty() ? default_price_table_path() : path);
}

namespace {

void require_hardware(bool given) {
  if (!given) throw BadInput("no hardware given", "pass --instance NAME (see configs/prices.json) or --price-per-hour");
}

// The throughput given by a bench file, seq/s or hours for some steps (at most one of them); none for
// a job in phases, whose phases have one each.
std::optional<Throughput> measured_throughput(const CostQuery& q) {
  std::optional<Throughput> measured;
  if (!q.phases.empty()) return measured;
  int sources = (!q.bench.empty()) + (q.seq_per_sec > 0) + (q.hours > 0);
  if (sources > 1) throw BadInput("give the throughput once: --bench, --seq-per-sec, or --hours with --for-steps");
  if (q.bench.size() > 1) throw BadInput("several --bench files", "pass one per length with --phase-schedule");
  if (!q.bench.empty()) measured = bench_throughput_at(q.bench.front(), q.job.seq_len);
  if (q.seq_per_sec > 0) measured = parse_throughput(std::to_string(q.seq_per_sec) + "/s");
  if (q.hours > 0) {
    if (q.for_steps == 0) throw BadInput("--hours needs --for-steps (the steps that took that long)");
    Throughput t;
    t.kind = Throughput::Kind::HoursPerSteps;
    t.value = q.hours;
    t.steps = q.for_steps;
    t.origin = std::to_string(q.hours) + " h for " + std::to_string(q.for_steps) + " steps";
    measured = t;
  }
  return measured;
}

// Each phase with the throughput of the bench file measured at its length.
std::vector<PricedPhase> priced_phases(const CostQuery& q) {
  if (q.phases.empty()) return {};
  if (q.seq_per_sec > 0 || q.hours > 0) {
    throw BadInput("--phase-schedule takes its throughputs from --bench files, one per length",
                   "run bertpt bench --seq-len LEN --out FILE for each length of the schedule");
  }
  std::map<uint32_t, Throughput> by_length;
  for (const std::string& path : q.bench) {
    const auto [len, t] = bench_throughput(path);
    by_length[len] = t;
  }
  std::vector<PricedPhase> phases;
  for (const PhaseSpec& p : q.phases) {
    auto it = by_length.find(p.seq_len);
    if (it == by_length.end()) {
      throw BadInput("--phase-schedule: no --bench file was measured at " + std::to_string(p.seq_len) + " tokens",
                     "bertpt bench --seq-len " + std::to_string(p.seq_len) + " --out FILE, then --bench FILE");
    }
    Job job;
    job.steps = p.steps;
    job.global_batch = p.global_batch > 0 ? p.global_batch : q.job.global_batch;
    job.seq_len = p.seq_len;
    phases.push_back({job, it->second});
  }
  return phases;
}

// The cost of the job on `count` × `instance`: of each phase at its own throughput, summed, when the
// job has phases; else of the whole job at `throughput`.
CostRow job_cost(const Job& whole, const std::vector<PricedPhase>& phases, const InstancePrice& instance, int count,
                 const std::optional<Throughput>& throughput) {
  if (phases.empty()) {
    if (!throughput) throw BadInput("no throughput given", "pass --bench, --seq-per-sec, or --hours with --for-steps");
    return estimate_cost(whole, instance, count, *throughput);
  }
  CostRow total;
  double sequences = 0;
  for (const PricedPhase& p : phases) {
    const CostRow r = estimate_cost(p.job, instance, count, p.throughput);
    if (total.instance.empty()) total = r, total.hours = total.instance_hours = total.device_hours = total.dollars = 0;
    total.hours += r.hours, total.instance_hours += r.instance_hours, total.device_hours += r.device_hours;
    total.dollars += r.dollars;
    sequences += p.job.sequences();
    if (&p != &phases.front()) total.throughput_origin += " + " + r.throughput_origin;
  }
  total.seq_per_sec = sequences / (total.hours * 3600.0);  // the whole job's average
  return total;
}

// The row of one --instance NAME[*COUNT][=THROUGHPUT].
CostRow instance_row(const CostQuery& q, const std::vector<PricedPhase>& phases,
                     const std::vector<InstancePrice>& table, const std::string& text,
                     const std::optional<Throughput>& measured) {
  InstanceSpec spec = parse_instance_spec(text);
  if (text.find('*') == std::string::npos) spec.count = q.instances;
  const InstancePrice& price = find_instance(table, spec.name);
  if (!phases.empty() && spec.throughput) {
    throw BadInput("--instance " + text + ": a throughput of its own does not say which length it was measured at",
                   "with --phase-schedule, pass a --bench file per length");
  }
  const std::optional<Throughput> tp = spec.throughput ? spec.throughput : measured;
  if (!tp && phases.empty()) {
    throw BadInput("no throughput for --instance " + text,
                   "pass --bench, --seq-per-sec, --hours/--for-steps, or NAME=THROUGHPUT");
  }
  return job_cost(q.job, phases, price, spec.count, tp);
}

}  // namespace

CostReport price_job(const CostQuery& q) {
  CostReport report;
  report.job = q.job;
  report.phases = priced_phases(q);
  const std::optional<Throughput> measured = measured_throughput(q);
  if (q.price_per_hour > 0) {
    const InstancePrice custom{"custom", q.price_per_hour, q.devices, "", "--price-per-hour", ""};
    report.rows.push_back(job_cost(q.job, report.phases, custom, q.instances, measured));
  }
  if (!q.instance_specs.empty()) {
    const std::vector<InstancePrice> table = price_table(q.prices);
    for (const std::string& text : q.instance_specs) {
      report.rows.push_back(instance_row(q, report.phases, table, text, measured));
    }
  }
  require_hardware(!report.rows.empty());
  return report;
}

nlohmann::json cost_report_json(const CostReport& report) {
  const Job& job = report.job;
  const CostRow& base = report.rows.front();
  nlohmann::json j;
  for (const PricedPhase& p : report.phases) {
    j["phases"].push_back({{"steps", p.job.steps},
                           {"global_batch", p.job.global_batch},
                           {"seq_len", p.job.seq_len},
                           {"seq_per_sec", p.throughput.value},
                           {"throughput_origin", p.throughput.origin}});
  }
  j["job"] = {{"steps", job.steps},
              {"global_batch", job.global_batch},
              {"seq_len", job.seq_len},
              {"sequences", job.sequences()},
              {"tokens", job.sequences() * job.seq_len}};
  j["rows"] = nlohmann::json::array();
  for (const CostRow& r : report.rows) {
    j["rows"].push_back({{"instance", r.instance},
                         {"count", r.count},
                         {"devices", r.devices},
                         {"price_per_hour", r.price_per_hour},
                         {"seq_per_sec", r.seq_per_sec},
                         {"hours", r.hours},
                         {"instance_hours", r.instance_hours},
                         {"device_hours", r.device_hours},
                         {"dollars", r.dollars},
                         {"relative_to_first", r.dollars / base.dollars - 1},
                         {"throughput_origin", r.throughput_origin},
                         {"measured_devices", r.measured_devices},
                         {"price_source", r.price_source},
                         {"price_as_of", r.price_as_of}});
  }
  return j;
}

namespace {

// What the projection needs of a `bertpt bench --out` file.
struct MeasuredStep {
  double step_sec = 0;  // one optimizer step of `batch` sequences per device
  int64_t batch = 0;    // per device
  int world_size = 1;   // devices the bench ran on
  double gradient_bytes = 0;
};

MeasuredStep read_measured_step(const std::string& path) {
  const BenchFile b = read_bench_file(path);
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

// One hardware setup to project: `devices` accelerators per node at `price_per_hour` per node.
struct ScalingHardware {
  std::string name;
  int devices = 1;
  double price_per_hour = 0;
};

// The custom setup (--price-per-hour) first, then each instance of the price table.
std::vector<ScalingHardware> scaling_hardware(const CostQuery& q) {
  std::vector<ScalingHardware> hw;
  if (q.price_per_hour > 0) hw.push_back({"custom", q.devices, q.price_per_hour});
  if (!q.instance_specs.empty()) {
    const std::vector<InstancePrice> table = price_table(q.prices);
    for (const std::string& text : q.instance_specs) {
      const InstanceSpec spec = parse_instance_spec(text);
      if (spec.throughput || text.find('*') != std::string::npos) {
        throw BadInput("--instance " + text + ": with --scale-nodes, give the instance name alone",
                       "the node counts come from --scale-nodes, the throughput from --bench");
      }
      const InstancePrice& price = find_instance(table, spec.name);
      hw.push_back({price.name, price.devices, price.price_per_hour});
    }
  }
  require_hardware(!hw.empty());
  return hw;
}

nlohmann::json project_hardware(const ScalingQuery& s, const MeasuredStep& m, const Interconnect& net, const Job& job,
                                const ScalingHardware& hw) {
  nlohmann::json rows = nlohmann::json::array();
  for (int nodes : s.nodes) {
    ScalingInput in;
    in.compute_sec = m.step_sec;
    in.gradient_bytes = m.gradient_bytes;
    in.backward_share = s.backward_share;
    in.nodes = nodes;
    in.devices_per_node = hw.devices;
    const ScalingPoint p = project_step(in, net);
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

}  // namespace

nlohmann::json project_scaling(const CostQuery& q, const ScalingQuery& s) {
  if (q.bench.size() != 1 || !q.phases.empty() || q.seq_per_sec > 0 || q.hours > 0) {
    throw BadInput("--scale-nodes projects from one --bench file (the step time of one device)",
                   "bertpt bench --seq-len " + std::to_string(q.job.seq_len) +
                       " --out bench.json, then --bench bench.json");
  }
  const std::string& bench_path = q.bench.front();
  bench_throughput_at(bench_path, q.job.seq_len);  // the length must match
  const std::vector<ScalingHardware> hardware = scaling_hardware(q);
  const MeasuredStep m = read_measured_step(bench_path);
  Interconnect net;
  net.intra_node_bytes_per_sec = parse_bandwidth(s.intra_node, "--intra-node");
  net.inter_node_bytes_per_sec = parse_bandwidth(s.inter_node, "--inter-node");
  net.latency_sec = s.latency_us * 1e-6;
  nlohmann::json out = {{"bench", bench_path},
                        {"measured_step_sec", m.step_sec},
                        {"per_device_batch", m.batch},
                        {"measured_world_size", m.world_size},
                        {"gradient_bytes", m.gradient_bytes},
                        {"intra_node_bytes_per_sec", net.intra_node_bytes_per_sec},
                        {"inter_node_bytes_per_sec", net.inter_node_bytes_per_sec},
                        {"latency_sec", net.latency_sec},
                        {"backward_share", s.backward_share},
                        {"hardware", nlohmann::json::array()}};
  for (const ScalingHardware& hw : hardware) out["hardware"].push_back(project_hardware(s, m, net, q.job, hw));
  return out;
}

}  // namespace bertpt::perf
