// `bertpt plot RUN [RUN ...]`: the loss, accuracy and throughput curves of one or more runs — bertpt
// runs (metrics.jsonl) and Hugging Face Trainer runs (trainer_state.json) — in one SVG
// (src/plot/). Plain C++: works in builds without LibTorch too.
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
#include "plot/run_curves.h"
#include "plot/svg_plot.h"

namespace bertpt::cli {

void add_plot_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::vector<std::string> runs;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("plot",
                                 "Draw the loss, accuracy and throughput curves of one or more runs in one SVG "
                                 "(default RUN/curves.svg)");
  cmd->add_option("runs", o->runs,
                  "bertpt run directories (or their metrics.jsonl) and Hugging Face Trainer runs "
                  "(trainer_state.json, or a checkpoint directory holding one), drawn together")
      ->required();
  cmd->add_option("-o,--out", o->out, "SVG file to write (default: curves.svg in the first run's directory)");
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
    const std::string out = !o->out.empty() ? o->out : (dir / "curves.svg").string();
    std::string title = "bertpt run " + first;
    if (runs.size() > 1) title = std::to_string(runs.size()) + " runs";
    write_file_atomic(out, plot::render_svg(runs, title));
    if (!o->common.quiet)
      std::fprintf(stderr, "plot: %zu records of %zu runs -> %s\n", records, runs.size(), out.c_str());
    if (o->common.json) print_json({{"out", out}, {"records", records}, {"runs", runs.size()}});
  });
}

}  // namespace bertpt::cli
