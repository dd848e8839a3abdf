// `bertpt cost`: time and dollars of a training job on given hardware, from a measured throughput.
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/cost_scaling.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "data/phase_schedule.h"
#include "perf/cost.h"

namespace bertpt::cli {

namespace {

std::string money(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", d);
  std::string s = buf;
  size_t dot = s.find('.');
  for (int i = int(dot) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return "$" + s;
}

// The sequence length and throughput measured by `bertpt bench --out FILE`.
std::pair<uint32_t, perf::Throughput> read_bench(const std::string& path) {
  const perf::BenchFile b = perf::read_bench_file(path);
  perf::Throughput t;
  t.kind = perf::Throughput::Kind::SeqPerSec;
  t.value = b.seq_per_sec;
  t.origin = "bench " + path;
  t.measured_devices = b.world_size;
  return {b.seq_len, t};
}

// The throughput of a bench file, which must have been measured at `seq_len`.
perf::Throughput throughput_from_bench(const std::string& path, uint32_t seq_len) {
  const auto [measured_len, t] = read_bench(path);
  if (measured_len != seq_len) {
    throw BadInput(path + " was measured at seq_len " + std::to_string(measured_len) + " but the job uses " +
                       std::to_string(seq_len),
                   "bench at the job's --seq-len, or pass --seq-len to match");
  }
  return t;
}

struct CostFlags {
  CommonFlags common;
  perf::Job job;
  std::vector<std::string> bench;
  std::string prices, phase_schedule;
  double seq_per_sec = 0, hours = 0, price_per_hour = 0;
  uint64_t for_steps = 0;
  int instances = 1, devices = 1;
  std::vector<std::string> instance_specs;
  ScalingFlags scaling;
};

void add_cost_flags(CLI::App* cmd, CostFlags& o) {
  cmd->add_option("--steps", o.job.steps, "Optimizer steps of the job")->capture_default_str();
  cmd->add_option("--global-batch", o.job.global_batch, "Sequences per step (all devices)")->capture_default_str();
  cmd->add_option("--seq-len", o.job.seq_len, "Tokens per sequence")->capture_default_str();
  cmd->add_option("--bench", o.bench,
                  "Throughput from a file written by bertpt bench --out; with --phase-schedule, one per length");
  cmd->add_option(
      "--phase-schedule", o.phase_schedule,
      "A job in phases of different lengths, as train's: LEN:SHARE[:GLOBAL_BATCH],... (a phase's third field "
      "is its global batch here; default --global-batch), each phase at the throughput of its --bench");
  cmd->add_option("--seq-per-sec", o.seq_per_sec, "Throughput in sequences per second");
  cmd->add_option("--hours", o.hours, "Throughput from a measured run: it took this many hours ...");
  cmd->add_option("--for-steps", o.for_steps, "... for this many steps (at --global-batch)");
  cmd->add_option("--instance", o.instance_specs,
                  "Hardware: NAME[*COUNT][=THROUGHPUT] from the price table; repeat to compare. THROUGHPUT overrides "
                  "the measured one for that row: SEQ/s, HOURSh/STEPS or HOURSh (the whole job)");
  cmd->add_option("--instances", o.instances, "Instances per --instance without *COUNT")->capture_default_str();
  cmd->add_option("--price-per-hour", o.price_per_hour,
                  "Price of one instance-hour of custom hardware (instead of --instance)");
  cmd->add_option("--devices", o.devices, "Accelerators per custom instance (with --price-per-hour)")
      ->capture_default_str();
  cmd->add_option("--prices", o.prices, "Price table (default: configs/prices.json of this installation)");
  add_scaling_flags(cmd, o.scaling);
  add_common_flags(cmd, o.common);
}

// The throughput given by --bench, --seq-per-sec or --hours/--for-steps (at most one of them).
std::optional<perf::Throughput> measured_throughput(const CostFlags& o) {
  std::optional<perf::Throughput> measured;
  if (!o.phase_schedule.empty()) return measured;  // one per phase: phase_jobs()
  int sources = (!o.bench.empty()) + (o.seq_per_sec > 0) + (o.hours > 0);
  if (sources > 1) throw BadInput("give the throughput once: --bench, --seq-per-sec, or --hours with --for-steps");
  if (o.bench.size() > 1) throw BadInput("several --bench files", "pass one per length with --phase-schedule");
  if (!o.bench.empty()) measured = throughput_from_bench(o.bench.front(), o.job.seq_len);
  if (o.seq_per_sec > 0) measured = perf::parse_throughput(std::to_string(o.seq_per_sec) + "/s");
  if (o.hours > 0) {
    if (o.for_steps == 0) throw BadInput("--hours needs --for-steps (the steps that took that long)");
    perf::Throughput t;
    t.kind = perf::Throughput::Kind::HoursPerSteps;
    t.value = o.hours;
    t.steps = o.for_steps;
    t.origin = std::to_string(o.hours) + " h for " + std::to_string(o.for_steps) + " steps";
    measured = t;
  }
  return measured;
}

// A phase of a --phase-schedule job: its steps, batch and length, at the throughput of its --bench.
struct PhaseJob {
  perf::Job job;
  perf::Throughput throughput;
};

// The phases of --phase-schedule (empty without it), each with the --bench file of its length.
std::vector<PhaseJob> phase_jobs(const CostFlags& o) {
  const data::PhaseSchedule schedule = data::parse_phase_schedule(o.phase_schedule, int64_t(o.job.steps));
  if (schedule.empty()) return {};
  if (o.seq_per_sec > 0 || o.hours > 0) {
    throw BadInput("--phase-schedule takes its throughputs from --bench files, one per length",
                   "run bertpt bench --seq-len LEN --out FILE for each length of the schedule");
  }
  std::map<uint32_t, perf::Throughput> by_length;
  for (const std::string& path : o.bench) {
    const auto [len, t] = read_bench(path);
    by_length[len] = t;
  }
  std::vector<PhaseJob> jobs;
  for (const data::TrainingPhase& p : schedule.phases) {
    if (p.grad_accum > 0) {
      throw BadInput("--phase-schedule: a phase of a cost job is LEN:SHARE[:GLOBAL_BATCH], without accumulation");
    }
    auto it = by_length.find(p.seq_len);
    if (it == by_length.end()) {
      throw BadInput("--phase-schedule: no --bench file was measured at " + std::to_string(p.seq_len) + " tokens",
                     "bertpt bench --seq-len " + std::to_string(p.seq_len) + " --out FILE, then --bench FILE");
    }
    perf::Job job;
    job.steps = uint64_t(p.steps());
    job.global_batch = p.per_device_batch > 0 ? uint64_t(p.per_device_batch) : o.job.global_batch;
    job.seq_len = p.seq_len;
    jobs.push_back({job, it->second});
  }
  return jobs;
}

// The cost of the job on `count` × `instance`: of each phase at its own throughput, summed, when the
// job has phases; else of the whole job at `throughput`.
perf::CostRow job_cost(const CostFlags& o, const std::vector<PhaseJob>& phases, const perf::InstancePrice& instance,
                       int count, const std::optional<perf::Throughput>& throughput) {
  if (phases.empty()) {
    if (!throughput) throw BadInput("no throughput given", "pass --bench, --seq-per-sec, or --hours with --for-steps");
    return perf::estimate_cost(o.job, instance, count, *throughput);
  }
  perf::CostRow total;
  double sequences = 0;
  for (const PhaseJob& p : phases) {
    const perf::CostRow r = perf::estimate_cost(p.job, instance, count, p.throughput);
    if (total.instance.empty()) total = r, total.hours = total.instance_hours = total.device_hours = total.dollars = 0;
    total.hours += r.hours, total.instance_hours += r.instance_hours, total.device_hours += r.device_hours;
    total.dollars += r.dollars;
    sequences += p.job.sequences();
    if (&p != &phases.front()) total.throughput_origin += " + " + r.throughput_origin;
  }
  total.seq_per_sec = sequences / (total.hours * 3600.0);  // the whole job's average
  return total;
}

// The price table of --prices, or the installation's configs/prices.json.
std::vector<perf::InstancePrice> price_table(const CostFlags& o) {
  return perf::load_price_table(o.prices.empty() ? perf::default_price_table_path() : o.prices);
}

void require_hardware(bool given) {
  if (!given) throw BadInput("no hardware given", "pass --instance NAME (see configs/prices.json) or --price-per-hour");
}

// One row per hardware setup: the custom one (--price-per-hour) first, then each --instance.
std::vector<perf::CostRow> cost_rows(const CostFlags& o, const std::vector<PhaseJob>& phases,
                                     const std::optional<perf::Throughput>& measured) {
  std::vector<perf::CostRow> rows;
  if (o.price_per_hour > 0) {
    perf::InstancePrice custom{"custom", o.price_per_hour, o.devices, "", "--price-per-hour", ""};
    rows.push_back(job_cost(o, phases, custom, o.instances, measured));
  }
  if (!o.instance_specs.empty()) {
    auto table = price_table(o);
    for (const auto& text : o.instance_specs) {
      perf::InstanceSpec spec = perf::parse_instance_spec(text);
      if (text.find('*') == std::string::npos) spec.count = o.instances;
      const auto& price = perf::find_instance(table, spec.name);
      if (!phases.empty() && spec.throughput) {
        throw BadInput("--instance " + text + ": a throughput of its own does not say which length it was measured at",
                       "with --phase-schedule, pass a --bench file per length");
      }
      auto tp = spec.throughput ? spec.throughput : measured;
      if (!tp && phases.empty()) {
        throw BadInput("no throughput for --instance " + text,
                       "pass --bench, --seq-per-sec, --hours/--for-steps, or NAME=THROUGHPUT");
      }
      rows.push_back(job_cost(o, phases, price, spec.count, tp));
    }
  }
  require_hardware(!rows.empty());
  return rows;
}

nlohmann::json cost_json(const perf::Job& job, const std::vector<PhaseJob>& phases,
                         const std::vector<perf::CostRow>& rows) {
  const perf::CostRow& base = rows.front();
  nlohmann::json j;
  for (const PhaseJob& p : phases) {
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
  for (const auto& r : rows) {
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
                         {"price_source", r.price_source},
                         {"price_as_of", r.price_as_of}});
  }
  return j;
}

// "baseline" for the first row, else how much more or less `r` costs than it.
std::string relative_to_first(const perf::CostRow& r, const perf::CostRow& base) {
  if (&r == &base) return "baseline";
  char buf[128];
  double more = r.dollars / base.dollars - 1;
  if (more >= 0) {
    std::snprintf(buf, sizeof buf, "%+.1f%% (first saves %.1f%%)", 100 * more, 100 * (1 - base.dollars / r.dollars));
  } else {
    std::snprintf(buf, sizeof buf, "%+.1f%% (saves %.1f%%)", 100 * more, -100 * more);
  }
  return buf;
}

void print_cost_table(const perf::Job& job, const std::vector<PhaseJob>& phases,
                      const std::vector<perf::CostRow>& rows) {
  if (phases.empty()) {
    std::printf("job: %llu steps x %llu sequences x %u tokens = %.1f M sequences (%.1f B tokens)\n",
                (unsigned long long)job.steps, (unsigned long long)job.global_batch, job.seq_len, job.sequences() / 1e6,
                job.sequences() * job.seq_len / 1e9);
  }
  for (size_t i = 0; i < phases.size(); ++i) {
    const perf::Job& p = phases[i].job;
    std::printf(
        "phase %zu: %llu steps x %llu sequences x %u tokens = %.1f M sequences (%.1f B tokens), %.1f seq/s "
        "per measured setup (%s)\n",
        i + 1, (unsigned long long)p.steps, (unsigned long long)p.global_batch, p.seq_len, p.sequences() / 1e6,
        p.sequences() * p.seq_len / 1e9, phases[i].throughput.value, phases[i].throughput.origin.c_str());
  }
  std::printf("%-16s %5s %7s %9s %9s %9s %10s %9s %13s  %s\n", "instance", "count", "devices", "seq/s", "hours",
              "inst-h", "device-h", "$/inst-h", "total", "vs first");
  for (const auto& r : rows) {
    std::printf("%-16s %5d %7d %9.1f %9.2f %9.2f %10.2f %9.2f %13s  %s\n", r.instance.c_str(), r.count, r.devices,
                r.seq_per_sec, r.hours, r.instance_hours, r.device_hours, r.price_per_hour, money(r.dollars).c_str(),
                relative_to_first(r, rows.front()).c_str());
  }
  for (const auto& r : rows) {
    if (r.measured_devices > 0 && r.measured_devices != r.devices) {
      std::printf(
          "  %s: assumed: the %d-device throughput of %s for all %d devices, unscaled (--scale-nodes "
          "projects it per device with the interconnect)\n",
          r.instance.c_str(), r.measured_devices, r.throughput_origin.c_str(), r.devices);
    }
    if (!r.price_source.empty()) {
      std::printf("  %s: $%.4g/h from %s%s%s\n", r.instance.c_str(), r.price_per_hour, r.price_source.c_str(),
                  r.price_as_of.empty() ? "" : ", as of ", r.price_as_of.c_str());
    }
  }
}

// The hardware rows of a --scale-nodes projection: the custom one (--price-per-hour) first, then each
// --instance, each as one node.
std::vector<ScalingHardware> scaling_hardware(const CostFlags& o) {
  std::vector<ScalingHardware> hw;
  if (o.price_per_hour > 0) hw.push_back({"custom", o.devices, o.price_per_hour});
  if (!o.instance_specs.empty()) {
    auto table = price_table(o);
    for (const auto& text : o.instance_specs) {
      const perf::InstanceSpec spec = perf::parse_instance_spec(text);
      if (spec.throughput || text.find('*') != std::string::npos) {
        throw BadInput("--instance " + text + ": with --scale-nodes, give the instance name alone",
                       "the node counts come from --scale-nodes, the throughput from --bench");
      }
      const auto& price = perf::find_instance(table, spec.name);
      hw.push_back({price.name, price.devices, price.price_per_hour});
    }
  }
  require_hardware(!hw.empty());
  return hw;
}

void run_scaling(const CostFlags& o) {
  if (o.bench.size() != 1 || !o.phase_schedule.empty() || o.seq_per_sec > 0 || o.hours > 0) {
    throw BadInput("--scale-nodes projects from one --bench file (the step time of one device)",
                   "bertpt bench --seq-len " + std::to_string(o.job.seq_len) +
                       " --out bench.json, then --bench bench.json");
  }
  throughput_from_bench(o.bench.front(), o.job.seq_len);  // the length must match
  const std::vector<ScalingHardware> hw = scaling_hardware(o);
  if (!o.common.json) {
    std::printf("job: %llu steps x %llu sequences x %u tokens = %.1f M sequences\n", (unsigned long long)o.job.steps,
                (unsigned long long)o.job.global_batch, o.job.seq_len, o.job.sequences() / 1e6);
  }
  nlohmann::json j = project_scaling(o.scaling, o.bench.front(), o.job, hw, o.common.json);
  if (o.common.json) {
    print_json({{"job",
                 {{"steps", o.job.steps},
                  {"global_batch", o.job.global_batch},
                  {"seq_len", o.job.seq_len},
                  {"sequences", o.job.sequences()}}},
                {"scaling", j}});
  }
}

void run_cost(const CostFlags& o) {
  if (!o.scaling.nodes.empty()) return run_scaling(o);
  const std::vector<PhaseJob> phases = phase_jobs(o);
  const std::vector<perf::CostRow> rows = cost_rows(o, phases, measured_throughput(o));
  if (o.common.json) {
    print_json(cost_json(o.job, phases, rows));
  } else {
    print_cost_table(o.job, phases, rows);
  }
}

}  // namespace

void add_cost_command(CLI::App& app) {
  auto o = std::make_shared<CostFlags>();
  auto* cmd = app.add_subcommand("cost",
                                 "Time and dollars of a training job on given hardware, from a measured throughput");
  add_cost_flags(cmd, *o);
  cmd->callback([o] { run_cost(*o); });
}

}  // namespace bertpt::cli
