// `bertpt train`: MLM pre-training (src/mlm/pretrain.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/dist_flags.h"
#include "cli/run_options.h"
#include "cli/stop_signals.h"
#include "cli/train_commands.h"
#include "common/error.h"

#include "distributed/process_group.h"
#include "mlm/pretrain.h"

namespace bertpt::cli {

namespace {

struct PretrainFlags {
  CommonFlags common;
  mlm::PretrainOptions cli;  // values as parsed; only the flags actually given override --config
  std::string config_file;
  DistFlags dist;
};

auto visit_train = [](auto& o, auto&& f) { mlm::visit_pretrain_options(o, f); };

// The run's options (cli/run_options.h). A resumed elastic run derives its accumulation again from
// --global-batch-size at every start: the saved one is the last world size's. A new run from
// --init-from has the checkpoint's model (a --model of another architecture is refused).
mlm::PretrainOptions resolve_options(const PretrainFlags& f, CLI::App* cmd) {
  RunOptionRules rules{"train", mlm::kMayChangeOnResume, [](nlohmann::json& saved) {
                         if (saved.value("global_batch_size", int64_t(0)) > 0) saved.erase("grad_accum");
                       }};
  nlohmann::json given;
  mlm::PretrainOptions opts = resolve_run_options(cmd, f.cli, visit_train, f.config_file, rules, &given);
  if (engine::resume_checkpoint(opts.resume, opts.output_dir).empty()) {
    mlm::adopt_init_from_model(opts, given.contains("model"));
  }
  return opts;
}

// The run summary (on_start): model, data, batch, schedule, hardware, kernels.
void print_run_start(const nlohmann::json& s, const mlm::PretrainOptions& opts) {
  const auto& m = s["model"];
  // The weights' origin: the checkpoint resumed or initialised from, else the --model preset or config.
  const std::string source = m.value("model_type", std::string("bert")) + " " + s.value("model_source", opts.model);
  std::fprintf(stderr,
               "train: %s: %lld layers, hidden %lld, %.1fM parameters, vocab %lld | data %s: %llu sequences x %llu "
               "tokens\n",
               source.c_str(), (long long)m["num_hidden_layers"].get<int64_t>(),
               (long long)m["hidden_size"].get<int64_t>(), double(s["parameters"].get<int64_t>()) / 1e6,
               (long long)m["vocab_size"].get<int64_t>(), opts.data.c_str(),
               (unsigned long long)s["dataset"]["train_sequences"].get<uint64_t>(),
               (unsigned long long)s["dataset"]["seq_len"].get<uint64_t>());
  std::fprintf(stderr,
               "train: global batch %lld (%lld per device x %lld accumulation x %d ranks), %lld steps, lr %g (%s, "
               "%lld warmup) | %s, %s, %d threads | MFU peak %.1f GFLOP/s (%s)\n",
               (long long)s["global_batch"].get<int64_t>(), (long long)s["per_device_batch"].get<int64_t>(),
               (long long)s["grad_accum"].get<int64_t>(), s["world_size"].get<int>(), (long long)opts.max_steps,
               opts.learning_rate, opts.lr_scheduler.c_str(), (long long)opts.warmup_steps,
               s["device"].get<std::string>().c_str(), opts.precision.c_str(), s["threads"].get<int>(),
               s["peak_flops"].get<double>() / 1e9, s["peak_source"].get<std::string>().c_str());
  if (s.contains("phases")) {
    for (const auto& p : s["phases"]) {
      std::fprintf(stderr, "train: phase %d: steps %lld-%lld at %d tokens, global batch %lld, %llu sequences\n",
                   p["phase"].get<int>(), (long long)p["first_step"].get<int64_t>(),
                   (long long)p["last_step"].get<int64_t>(), p["seq_len"].get<int>(),
                   (long long)p["global_batch"].get<int64_t>(),
                   (unsigned long long)p["train_sequences"].get<uint64_t>());
    }
  }
  std::fprintf(stderr, "train: attention %s, AdamW %s | effective config in %s/run_config.json\n",
               s["attention_kernel"].get<std::string>().c_str(), s["adamw_kernel"].get<std::string>().c_str(),
               opts.output_dir.c_str());
}

// The end of the run: where it stopped, the ranks' exposed communication, the --json summary.
void report_result(const mlm::TrainResult& r, const mlm::PretrainOptions& opts,
                   distributed::C10dCollectives* collectives, bool quiet, bool json) {
  if (!quiet) {
    std::fprintf(stderr, "train: %s at step %lld of %lld%s -> %s\n", r.interrupted ? "stopped" : "done",
                 (long long)r.final_step, (long long)opts.max_steps,
                 r.skipped_steps ? (" (" + std::to_string(r.skipped_steps) + " steps skipped)").c_str() : "",
                 r.last_checkpoint.empty() ? opts.output_dir.c_str() : r.last_checkpoint.c_str());
  }
  if (collectives) collectives->verify_parameters_in_sync();
  const double exposed = collectives ? collectives->total_exposed_communication_seconds() : 0.0;
  if (collectives && !quiet) {
    std::fprintf(stderr,
                 "train: %d ranks (%s); gradient communication not hidden by the backward pass: %.2f s of %.2f s "
                 "(%.1f%%)\n",
                 collectives->world_size(), collectives->communicator().backend().c_str(), exposed, r.seconds,
                 r.seconds > 0 ? 100.0 * exposed / r.seconds : 0.0);
  }
  if (json && (!collectives || collectives->rank() == 0)) {
    print_json({{"output_dir", opts.output_dir},
                {"world_size", collectives ? collectives->world_size() : 1},
                {"exposed_communication_seconds", exposed},
                {"start_step", r.start_step},
                {"final_step", r.final_step},
                {"interrupted", r.interrupted},
                {"skipped_steps", r.skipped_steps},
                {"last_checkpoint", r.last_checkpoint},
                {"last_log", r.last_log},
                {"last_eval", r.last_eval},
                {"seconds", r.seconds}});
  }
}

void run_train_command(const PretrainFlags& f, CLI::App* cmd) {
  launch_workers_if_asked(f.dist, f.common.quiet);
  mlm::PretrainOptions opts = resolve_options(f, cmd);
  // Under a launcher (ours, torchrun, mpirun, srun): this process is one rank of a c10d group.
  std::unique_ptr<distributed::C10dCollectives> collectives = distributed::join_process_group(
      f.dist.timeout_seconds, opts.device, opts.threads, "the training options (data, model, batch, schedule, seed)",
      opts.to_json());
  mlm::resolve_global_batch(opts, collectives ? collectives->world_size() : 1);
  const bool quiet = f.common.quiet || (collectives && collectives->rank() != 0);
  mlm::TrainHooks hooks;
  hooks.collectives = collectives.get();
  hooks.stop_requested = [] { return StopSignals::requested(); };
  hooks.on_start = [&](const nlohmann::json& s) {
    if (!quiet) print_run_start(s, opts);
  };
  hooks.on_log = [&](const nlohmann::json& r) {
    if (!quiet) std::fprintf(stderr, "%s\n", mlm::format_log_line(r, opts.max_steps).c_str());
  };
  hooks.on_message = [&](const std::string& m) {
    if (!quiet) std::fprintf(stderr, "train: %s\n", m.c_str());
  };
  StopSignals signals;
  const mlm::TrainResult r = mlm::run_pretraining(opts, hooks);
  report_result(r, opts, collectives.get(), quiet, f.common.json);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto f = std::make_shared<PretrainFlags>();
  auto* cmd = app.add_subcommand("train", "Pre-train BERT with masked language modelling (CPU or CUDA)");
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated flag: the last wins
  add_option_flags(cmd, f->cli, visit_train);
  cmd->add_option("--config", f->config_file, "JSON file of train options (keys as the flags, '_' for '-'); flags win");
  add_dist_flags(cmd, f->dist);
  add_common_flags(cmd, f->common);
  cmd->callback([f, cmd] { run_train_command(*f, cmd); });
}

}  // namespace bertpt::cli
