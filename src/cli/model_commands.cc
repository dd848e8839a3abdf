// The commands that run the model, registered together. Their files (cmd_train.cc, cmd_eval.cc, ...)
// are compiled only with LibTorch (CMakeLists.txt); without it each command still exists, takes any
// arguments, and says in one line why it cannot run — the one place that knows LibTorch is missing.
#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/error.h"

namespace bertpt::cli {

#ifndef BERTPT_HAVE_TORCH
namespace {

void add_unavailable_command(CLI::App& app, const std::string& name, const std::string& what) {
  auto* cmd = app.add_subcommand(name, "Cannot " + what + ": this bertpt was built without LibTorch");
  cmd->allow_extras();
  cmd->callback([what] {
    throw BadInput("this bertpt was built without LibTorch, so it cannot " + what,
                   "rebuild with -DBERTPT_WITH_TORCH=ON (scripts/setup installs LibTorch)");
  });
}

}  // namespace
#endif

void add_training_commands(CLI::App& app) {
#ifdef BERTPT_HAVE_TORCH
  add_train_command(app);
  add_eval_command(app);
  add_fill_mask_command(app);
  add_bench_command(app);
  add_finetune_command(app);
  add_glue_command(app);
  add_predict_command(app);
  add_embed_command(app);
#else
  add_unavailable_command(app, "train", "pre-train");
  add_unavailable_command(app, "eval", "evaluate a model");
  add_unavailable_command(app, "fill-mask", "run a model");
  add_unavailable_command(app, "bench", "benchmark training");
  add_unavailable_command(app, "finetune", "fine-tune");
  add_unavailable_command(app, "glue", "fine-tune");
  add_unavailable_command(app, "predict", "run a model");
  add_unavailable_command(app, "embed", "run a model");
#endif
  add_plot_command(app);  // plain C++: reads metrics files
}

}  // namespace bertpt::cli
