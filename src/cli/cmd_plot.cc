// `bertpt plot RUN [RUN ...]`: the loss, accuracy, throughput and learning-rate curves of one or more
// runs — bertpt runs (metrics.jsonl) and Hugging Face Trainer runs (trainer_state.json) — in one
// picture, PNG and SVG (src/plot/). Plain C++: works in builds without LibTorch too.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "plot/chart.h"
#include "plot/run_curves.h"

namespace bertpt::cli {

void add_plot_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::vector<std::string> runs;
    std::vector<std::string> out;
    plot::ChartOptions chart;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("plot",
                                 "Draw the loss, accuracy, throughput and learning-rate curves of one or more runs "
                                 "(default: curves.png and curves.svg in the first run's directory)");
  cmd->add_option("runs", o->runs,
                  "bertpt run directories (or their metrics.jsonl) and Hugging Face Trainer runs "
                  "(trainer_state.json, or a checkpoint directory holding one), drawn together")
      ->required();
  cmd->add_option("-o,--out", o->out, "Picture(s) to write: FILE.png and/or FILE.svg (repeatable)");
  cmd->add_option("--smoothing", o->chart.smoothing,
                  "TensorBoard's smoothing of the training curves, in [0, 1) (0: raw curves only)")
      ->capture_default_str();
  cmd->add_option("--title", o->chart.title, "Title of the picture (default: the run, or the number of runs)");
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    namespace fs = std::filesystem;
    std::vector<plot::RunCurves> runs;
    size_t records = 0;
    for (const auto& r : o->runs) {
      runs.push_back(plot::read_run_curves(r));
      records += runs.back().records;
    }
    std::error_code ec;
    const std::string& first = o->runs.front();
    const fs::path dir = fs::is_directory(first, ec) ? fs::path(first) : fs::path(first).parent_path();
    std::vector<std::string> outs = o->out;
    if (outs.empty()) outs = {(dir / "curves.png").string(), (dir / "curves.svg").string()};
    if (o->chart.title.empty()) {
      o->chart.title = runs.size() > 1 ? std::to_string(runs.size()) + " runs" : "bertpt run " + first;
    }
    for (const auto& out : outs) plot::write_chart(runs, o->chart, out);
    if (!o->common.quiet) {
      std::string list;
      for (const auto& out : outs) list += (list.empty() ? "" : ", ") + out;
      std::fprintf(stderr, "plot: %zu records of %zu runs -> %s\n", records, runs.size(), list.c_str());
    }
    if (o->common.json) print_json({{"out", outs}, {"records", records}, {"runs", runs.size()}});
  });
}

}  // namespace bertpt::cli
