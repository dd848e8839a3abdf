// `bertpt cost`: time and dollars of a training job on given hardware, from a measured throughput.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/cost_scaling.h"
#include "common/error.h"
#include "data/phase_schedule.h"
#include "perf/cost_report.h"

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

struct CostFlags {
  CommonFlags common;
  perf::Job job;
  std::vector<std::string> bench;
  std::string prices, phase_schedule;
  double seq_per_sec = 0, hours = 0, price_per_hour = 0;
  uint64_t for_steps = 0;
  int instances = 1, devices = 1;
  std::vector<std::string> instance_specs;
  perf::ScalingQuery scaling;
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

// The CostQuery of the flags: --phase-schedule read as train reads it, each phase at its --bench.
perf::CostQuery cost_query(const CostFlags& o) {
  perf::CostQuery q;
  q.job = o.job;
  const data::PhaseSchedule schedule = data::parse_phase_schedule(o.phase_schedule, int64_t(o.job.steps));
  for (const data::TrainingPhase& p : schedule.phases) {
    if (p.grad_accum > 0) {
      throw BadInput("--phase-schedule: a phase of a cost job is LEN:SHARE[:GLOBAL_BATCH], without accumulation");
    }
    q.phases.push_back({p.seq_len, uint64_t(p.steps()), uint64_t(std::max<int64_t>(p.per_device_batch, 0))});
  }
  q.bench = o.bench;
  q.seq_per_sec = o.seq_per_sec;
  q.hours = o.hours;
  q.for_steps = o.for_steps;
  q.price_per_hour = o.price_per_hour;
  q.devices = o.devices;
  q.instances = o.instances;
  q.instance_specs = o.instance_specs;
  q.prices = o.prices;
  return q;
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

void print_cost_table(const perf::CostReport& report) {
  const perf::Job& job = report.job;
  const std::vector<perf::PricedPhase>& phases = report.phases;
  const std::vector<perf::CostRow>& rows = report.rows;
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
          "  %s: assumed: perfect scaling of the %d-device throughput of %s (%.1f seq/s) to %d devices "
          "(--scale-nodes projects it with the interconnect)\n",
          r.instance.c_str(), r.measured_devices, r.throughput_origin.c_str(), r.measured_seq_per_sec, r.devices);
    }
    if (!r.price_source.empty()) {
      std::printf("  %s: $%.4g/h from %s%s%s\n", r.instance.c_str(), r.price_per_hour, r.price_source.c_str(),
                  r.price_as_of.empty() ? "" : ", as of ", r.price_as_of.c_str());
    }
  }
}

void run_cost(const CostFlags& o) {
  const perf::CostQuery query = cost_query(o);
  if (!o.scaling.nodes.empty()) {
    const nlohmann::json projection = perf::project_scaling(query, o.scaling);
    if (o.common.json) {
      print_json({{"job",
                   {{"steps", o.job.steps},
                    {"global_batch", o.job.global_batch},
                    {"seq_len", o.job.seq_len},
                    {"sequences", o.job.sequences()}}},
                  {"scaling", projection}});
    } else {
      print_scaling(projection, o.job);
    }
    return;
  }
  const perf::CostReport report = perf::price_job(query);
  if (o.common.json) {
    print_json(perf::cost_report_json(report));
  } else {
    print_cost_table(report);
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
