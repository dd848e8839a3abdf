// `bertpt finetune`: text classification, regression or NER on a pre-trained BERT (src/classify/finetune.h).
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/dist_flags.h"
#include "cli/run_options.h"
#include "cli/stop_signals.h"
#include "cli/train_commands.h"
#include "common/error.h"

#include "classify/finetune.h"
#include "distributed/process_group.h"

namespace bertpt::cli {

namespace {

void print_report(const classify::FinetuneResult& result) {
  const nlohmann::json& r = result.report;
  std::fprintf(stderr, "finetune: best epoch %lld of %zu (chosen by: %s) -> %s\n",
               (long long)r["best_epoch"].get<int64_t>(), r["epochs"].size(),
               ((r.contains("valid") ? "valid " : "") + r["metric_for_best"].get<std::string>()).c_str(),
               result.best_dir.c_str());
  for (const auto& s : result.splits) {
    std::fprintf(stderr, "\n%s (%lld examples)\n%s", s.name.c_str(), (long long)s.examples, s.table.c_str());
  }
}

struct FinetuneFlags {
  CommonFlags common;
  classify::FinetuneOptions options;  // values as parsed; only the flags actually given count
  std::string config_file;
  DistFlags dist;
};

auto visit_finetune = [](auto& o, auto&& f) { classify::visit_finetune_options(o, f); };

void run_finetune_command(const FinetuneFlags& f, CLI::App* cmd) {
  launch_workers_if_asked(f.dist, f.common.quiet);
  const RunOptionRules rules{"finetune", classify::kMayChangeOnResume, {}};
  classify::FinetuneOptions opts = resolve_run_options(cmd, f.options, visit_finetune, f.config_file, rules);
  opts.validate();
  auto collectives = distributed::join_process_group(f.dist.timeout_seconds, opts.device, opts.threads,
                                                     "the finetune options (data, model, batch, seed)", opts.to_json());
  const bool quiet = f.common.quiet || (collectives && collectives->rank() != 0);
  classify::FinetuneHooks hooks;
  hooks.collectives = collectives.get();
  hooks.stop_requested = [] { return StopSignals::requested(); };
  hooks.on_message = [&](const std::string& m) {
    if (!quiet) std::fprintf(stderr, "finetune: %s\n", m.c_str());
  };
  hooks.on_log = [&](const nlohmann::json& r) {
    if (!quiet) std::fprintf(stderr, "%s\n", classify::format_finetune_log(r).c_str());
  };
  StopSignals signals;
  classify::FinetuneResult r = classify::run_finetune(opts, hooks);
  if (r.interrupted) {
    if (!quiet) std::fprintf(stderr, "finetune: stopped -> %s\n", r.checkpoint.c_str());
    return;
  }
  if (collectives) collectives->verify_parameters_in_sync();
  if (!quiet) print_report(r);
  if (f.common.json && (!collectives || collectives->rank() == 0)) print_json(r.report);
}

}  // namespace

void add_finetune_command(CLI::App& app) {
  auto o = std::make_shared<FinetuneFlags>();
  auto* cmd = app.add_subcommand(
      "finetune", "Fine-tune BERT: text (pair) classification or regression, or token classification (NER)");
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated flag: the last wins
  add_option_flags(cmd, o->options, visit_finetune);
  cmd->add_option("--config", o->config_file,
                  "JSON file of finetune options (keys as the flags, '_' for '-'); flags win");
  add_dist_flags(cmd, o->dist);
  add_common_flags(cmd, o->common);
  cmd->callback([o, cmd] { run_finetune_command(*o, cmd); });
}

}  // namespace bertpt::cli
