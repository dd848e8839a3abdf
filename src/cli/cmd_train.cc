// `bertpt train`: MLM pre-training (src/train/trainer.h). Also registers the other model commands.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "cli/commands.h"
#include "cli/dist_setup.h"
#include "cli/train_commands.h"
#include "common/atomic_file.h"
#include "common/error.h"

#ifdef BERTPT_HAVE_TORCH
#include "common/hash.h"
#include "dist/c10d_collectives.h"
#include "train/trainer.h"
#endif

namespace bertpt::cli {

void add_training_commands(CLI::App& app) {
  add_train_command(app);
  add_eval_command(app);
  add_fill_mask_command(app);
  add_plot_command(app);
  add_bench_command(app);
  add_finetune_command(app);
  add_predict_command(app);
}

#ifdef BERTPT_HAVE_TORCH

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

// First SIGINT/SIGTERM: finish the step, save a checkpoint, exit 0. A second one: die at once.
extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
  const char msg[] = "\ntrain: signal received: finishing this step and saving a checkpoint (again to abort)\n";
  ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)n;
}

// Installs the handlers for the lifetime of the object.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // a signal must not fail a blocking read or write
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_, old_term_;
};

std::string dashed(const std::string& key) {
  std::string f = key;
  for (char& c : f) c = c == '_' ? '-' : c;
  return f;
}

}  // namespace

#ifdef BERTPT_HAVE_TORCH
// What every rank must agree on: the options that define the run (not device or thread count).
uint64_t run_fingerprint(const train::TrainOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  train::visit_train_options(const_cast<train::TrainOptions&>(o), [&](const char* name, const auto& member, const char*) {
    std::string n = name;
    if (n != "device" && n != "threads") j[n] = member;
  });
  return hash64(j.dump());
}
#endif

void add_train_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    train::TrainOptions cli;  // values as parsed; only the flags actually given override --config
    std::string config_file;
    DistFlags dist;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("train", "Pre-train BERT with masked language modelling (CPU or CUDA)");
  train::visit_train_options(o->cli, [&](const char* name, auto& member, const char* help) {
    using T = std::decay_t<decltype(member)>;
    const std::string flag = "--" + dashed(name);
    if constexpr (std::is_same_v<T, bool>) {
      cmd->add_flag(flag, member, help);
    } else {
      cmd->add_option(flag, member, help)->capture_default_str();
    }
  });
  cmd->add_option("--config", o->config_file, "JSON file of train options (keys as the flags, '_' for '-'); flags win");
  add_dist_flags(cmd, o->dist);
  add_common_flags(cmd, o->common);
  cmd->callback([o, cmd] {
    launch_workers_if_asked(o->dist, o->common.quiet);
    train::TrainOptions opts;
    if (!o->config_file.empty()) {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(read_file(o->config_file));
      } catch (const nlohmann::json::exception& e) {
        throw BadInput(o->config_file + ": not valid JSON (" + e.what() + ")");
      }
      opts.apply_json(j, o->config_file);
    }
    nlohmann::json given = nlohmann::json::object();
    train::visit_train_options(o->cli, [&](const char* name, const auto& member, const char*) {
      if (cmd->get_option("--" + dashed(name))->count() > 0) given[name] = member;
    });
    opts.apply_json(given, "command line");

    // Under a launcher (ours, torchrun, mpirun, srun): this process is one rank of a c10d group.
    std::unique_ptr<dist::C10dCollectives> collectives = join_process_group(
        o->dist, opts.device, opts.threads, "the training options (data, model, batch, schedule, seed)", run_fingerprint(opts));
    const bool quiet = o->common.quiet || (collectives && collectives->rank() != 0);
    train::TrainHooks hooks;
    hooks.collectives = collectives.get();
    hooks.stop_requested = [] { return g_stop_signal != 0; };
    hooks.on_start = [&](const nlohmann::json& s) {
      if (quiet) return;
      const auto& m = s["model"];
      std::fprintf(stderr,
                   "train: %s: %lld layers, hidden %lld, %.1fM parameters, vocab %lld | data %s: %llu sequences x %llu tokens\n",
                   opts.model.c_str(), (long long)m["num_hidden_layers"].get<int64_t>(), (long long)m["hidden_size"].get<int64_t>(),
                   double(s["parameters"].get<int64_t>()) / 1e6, (long long)m["vocab_size"].get<int64_t>(), opts.data.c_str(),
                   (unsigned long long)s["dataset"]["train_sequences"].get<uint64_t>(),
                   (unsigned long long)s["dataset"]["seq_len"].get<uint64_t>());
      std::fprintf(stderr,
                   "train: global batch %lld (%lld per device x %lld accumulation x %d ranks), %lld steps, lr %g (%s, %lld warmup) "
                   "| %s, %s, %d threads | MFU peak %.1f GFLOP/s (%s)\n",
                   (long long)s["global_batch"].get<int64_t>(), (long long)opts.per_device_batch_size, (long long)opts.grad_accum,
                   s["world_size"].get<int>(), (long long)opts.max_steps, opts.learning_rate, opts.lr_scheduler.c_str(),
                   (long long)opts.warmup_steps, s["device"].get<std::string>().c_str(), opts.precision.c_str(),
                   s["threads"].get<int>(), s["peak_flops"].get<double>() / 1e9, s["peak_source"].get<std::string>().c_str());
      std::fprintf(stderr, "train: attention %s, AdamW %s | effective config in %s/run_config.json\n",
                   s["attention_kernel"].get<std::string>().c_str(), s["adamw_kernel"].get<std::string>().c_str(),
                   opts.output_dir.c_str());
    };
    hooks.on_log = [&](const nlohmann::json& r) {
      if (!quiet) std::fprintf(stderr, "%s\n", train::format_log_line(r, opts.max_steps).c_str());
    };
    hooks.on_message = [&](const std::string& m) {
      if (!quiet) std::fprintf(stderr, "train: %s\n", m.c_str());
    };
    g_stop_signal = 0;
    StopSignals signals;
    train::TrainResult r = train::run_training(opts, hooks);
    if (!quiet) {
      std::fprintf(stderr, "train: %s at step %lld of %lld%s -> %s\n", r.interrupted ? "stopped" : "done",
                   (long long)r.final_step, (long long)opts.max_steps,
                   r.skipped_steps ? (" (" + std::to_string(r.skipped_steps) + " steps skipped)").c_str() : "",
                   r.last_checkpoint.empty() ? opts.output_dir.c_str() : r.last_checkpoint.c_str());
    }
    if (collectives) collectives->verify_parameters_in_sync();
    double exposed = collectives ? collectives->total_exposed_communication_seconds() : 0.0;
    if (collectives && !quiet) {
      std::fprintf(stderr, "train: %d ranks (%s); gradient communication not hidden by the backward pass: %.2f s of %.2f s (%.1f%%)\n",
                   collectives->world_size(), collectives->communicator().backend().c_str(), exposed, r.seconds,
                   r.seconds > 0 ? 100.0 * exposed / r.seconds : 0.0);
    }
    if (o->common.json && (!collectives || collectives->rank() == 0)) {
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
  });
}

#else  // no LibTorch: the command exists and says why it cannot run

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Pre-train BERT (needs a build with LibTorch)");
  cmd->allow_extras();
  cmd->callback([] {
    throw BadInput("this bertpt was built without LibTorch, so it cannot train", "rebuild with -DBERTPT_WITH_TORCH=ON");
  });
}

#endif

}  // namespace bertpt::cli
