// `bertpt cost --scale-nodes 1,8,64`: the flags of the projection (perf::ScalingQuery, computed by
// perf::project_scaling in perf/cost_report.h) and its tables, with every assumption printed beside them.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "perf/cost_report.h"

namespace bertpt::cli {

void add_scaling_flags(CLI::App* cmd, perf::ScalingQuery& query);

// Prints the projection of perf::project_scaling: the measured step, the assumptions, a table per
// hardware setup.
void print_scaling(const nlohmann::json& projection, const perf::Job& job);

}  // namespace bertpt::cli
