// `bertpt cost --scale-nodes 1,8,64`: the job's time and dollars on N nodes of each hardware row,
// projected from a one-device `bertpt bench` through the data-parallel scaling model of
// perf/scaling.h, with every assumption printed beside the table.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/cost.h"

namespace bertpt::cli {

struct ScalingFlags {
  std::vector<int> nodes;              // empty: no projection
  std::string intra_node = "450GB/s";  // per device within a node (NVLink 4 through NVSwitch)
  std::string inter_node = "400Gbps";  // per node between nodes
  double latency_us = 5;               // per step of a ring or tree
  double backward_share = 2.0 / 3.0;   // of the step that the all-reduce can hide behind
};

void add_scaling_flags(CLI::App* cmd, ScalingFlags& flags);

// One hardware setup to project: `devices` accelerators per node at `price_per_hour` per node.
struct ScalingHardware {
  std::string name;
  int devices = 1;
  double price_per_hour = 0;
};

// The projection of `job` on every node count of `flags` for each of `hardware`, from the bench file
// `bench_path` (its step time, batch and parameter count). Prints the tables, or returns them as JSON
// when `json`.
nlohmann::json project_scaling(const ScalingFlags& flags, const std::string& bench_path, const perf::Job& job,
                               const std::vector<ScalingHardware>& hardware, bool json);

}  // namespace bertpt::cli
