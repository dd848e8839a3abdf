// `bertpt glue`: a pre-trained model fine-tuned and scored on every GLUE task in the given folders
// (src/classify/glue.h).
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "classify/glue.h"
#include "cli/commands.h"
#include "cli/option_flags.h"
#include "cli/stop_signals.h"
#include "cli/train_commands.h"

namespace bertpt::cli {

namespace {

// The finetune options that apply to every task; the data options come from each task's files.
const std::set<std::string> kGlueOptions = {"model",
                                            "tokenizer",
                                            "output_dir",
                                            "overwrite_output_dir",
                                            "epochs",
                                            "learning_rate",
                                            "per_device_batch_size",
                                            "grad_accum",
                                            "max_seq_len",
                                            "warmup_ratio",
                                            "weight_decay",
                                            "max_grad_norm",
                                            "max_nan_steps",
                                            "seed",
                                            "precision",
                                            "device",
                                            "threads",
                                            "eval_batch_size",
                                            "logging_steps",
                                            "report_to"};

auto visit_glue = [](auto& o, auto&& f) {
  classify::visit_finetune_options(o, [&](const char* name, auto& member, const char* help) {
    if (kGlueOptions.count(name)) f(name, member, help);
  });
};

struct GlueFlags {
  CommonFlags common;
  classify::GlueOptions glue;
  std::string tasks;  // comma-separated
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c != ',') {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

void run_glue_command(GlueFlags& f) {
  f.glue.tasks = split_commas(f.tasks);
  f.glue.finetune.train = "(per task)";  // validate() checks what the tasks share; each task sets its data
  f.glue.finetune.validate();
  const bool quiet = f.common.quiet;
  classify::FinetuneHooks hooks;
  hooks.stop_requested = [] { return StopSignals::requested(); };
  hooks.on_message = [&](const std::string& m) {
    if (!quiet) std::fprintf(stderr, "glue: %s\n", m.c_str());
  };
  StopSignals signals;
  const classify::GlueResult r = classify::run_glue(f.glue, hooks);
  if (!quiet) std::fprintf(stderr, "\n%s", classify::format_glue_table(r).c_str());
  if (f.common.json) print_json(r.to_json());
}

}  // namespace

void add_glue_command(CLI::App& app) {
  auto f = std::make_shared<GlueFlags>();
  auto* cmd = app.add_subcommand(
      "glue", "Fine-tune a pre-trained model on every GLUE task in --data and print the GLUE table (dev scores)");
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_option_flags(cmd, f->glue.finetune, visit_glue);
  cmd->add_option("--data", f->glue.data_dirs,
                  "Folder holding GLUE task folders (CoLA, SST-2, MRPC, STS-B, QQP, MNLI, QNLI, RTE, WNLI); repeatable")
      ->required()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--tasks", f->tasks, "Comma-separated tasks to run (default: every task found)");
  cmd->add_option("--override", f->glue.overrides,
                  "TASK.OPTION=VALUE for one task, e.g. RTE.epochs=10 or STS-B.learning_rate=3e-5; repeatable")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_common_flags(cmd, f->common);
  cmd->callback([f] { run_glue_command(*f); });
}

}  // namespace bertpt::cli
