// A whole `bertpt cost` question answered: where the throughput comes from (a bench file, seq/s, or
// hours for some steps; one bench file per length for a job in phases), which hardware to price (a
// custom price, instances of the price table), and the rows of hours and dollars, one per hardware
// setup. The CLI (cli/cmd_cost.cc) only fills a CostQuery and prints the CostReport.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/cost.h"

namespace bertpt::perf {

// One phase of a job trained at several lengths (train's --phase-schedule).
struct PhaseSpec {
  uint32_t seq_len = 0;
  uint64_t steps = 0;
  uint64_t global_batch = 0;  // 0: the job's
};

struct CostQuery {
  Job job;
  std::vector<PhaseSpec> phases;            // empty: the whole job at one length
  std::vector<std::string> bench;           // `bertpt bench --out` files: one, or one per phase length
  double seq_per_sec = 0;                   // or the throughput as a number,
  double hours = 0;                         // or as the hours ...
  uint64_t for_steps = 0;                   // ... of this many steps
  double price_per_hour = 0;                // a custom setup: the price of one instance-hour,
  int devices = 1;                          // its accelerators
  int instances = 1;                        // per setup without *COUNT
  std::vector<std::string> instance_specs;  // NAME[*COUNT][=THROUGHPUT] of the price table
  std::string prices;                       // the price table ("": this installation's)
};

struct PricedPhase {
  Job job;
  Throughput throughput;
};

struct CostReport {
  Job job;
  std::vector<PricedPhase> phases;
  std::vector<CostRow> rows;  // the custom setup first, then each instance spec
};

// Throws BadInput for a throughput given twice or not at all, a bench file of another length, an
// unknown instance, no hardware.
CostReport price_job(const CostQuery& query);
nlohmann::json cost_report_json(const CostReport& report);

// ---- `bertpt cost --scale-nodes`: the job on N nodes of each hardware setup, projected from a
// one-device bench through the data-parallel model of perf/scaling.h.
struct ScalingQuery {
  std::vector<int> nodes;              // empty: no projection
  std::string intra_node = "450GB/s";  // per device within a node (NVLink 4 through NVSwitch)
  std::string inter_node = "400Gbps";  // per node between nodes
  double latency_us = 5;               // per step of a ring or tree
  double backward_share = 2.0 / 3.0;   // of the step that the all-reduce can hide behind
};

// The projection of the query's job (one --bench file, no phases) on every node count of `scaling`,
// per hardware setup (the custom one first, then each instance name, each as one node): the
// measured step and the assumptions, then per setup its rows (nodes, devices, step_sec,
// allreduce_sec, exposed_sec, efficiency, global_batch, steps, seq_per_sec, hours, dollars).
nlohmann::json project_scaling(const CostQuery& query, const ScalingQuery& scaling);

// The price table of `path`, or this installation's for "".
std::vector<InstancePrice> price_table(const std::string& path);

// The sequence length and throughput a bench file measured.
std::pair<uint32_t, Throughput> bench_throughput(const std::string& path);
// The same, refused unless it was measured at `seq_len`.
Throughput bench_throughput_at(const std::string& path, uint32_t seq_len);

}  // namespace bertpt::perf
