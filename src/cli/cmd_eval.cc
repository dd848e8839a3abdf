// `bertpt eval`: MLM loss, perplexity and accuracy of a checkpoint on a prepared split, with a fixed
// evaluation mask (src/mlm/evaluate.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/error.h"

#include "engine/device.h"
#include "engine/precision.h"
#include "mlm/evaluate.h"

namespace bertpt::cli {

void add_eval_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::string model, data, split = "valid", precision = "fp32";
    mlm::EvalOptions eval;
    int threads = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("eval", "MLM loss, perplexity and accuracy of a checkpoint on a held-out split");
  cmd->add_option("--model", o->model, "Checkpoint directory (config.json + model.safetensors)")->required();
  cmd->add_option("--data", o->data, "Prepared dataset directory")->required();
  cmd->add_option("--split", o->split, "valid or train")->capture_default_str();
  cmd->add_option("--max-batches", o->eval.max_batches, "Evaluate only the first N batches (0: all)")
      ->capture_default_str();
  cmd->add_option("--batch-size", o->eval.batch_size, "Sequences per batch (the result does not depend on it)")
      ->capture_default_str();
  cmd->add_option("--mlm-probability", o->eval.mlm_probability, "Share of tokens masked")->capture_default_str();
  cmd->add_flag("--whole-word-mask", o->eval.whole_word_mask, "Mask whole words, as a run trained with it");
  cmd->add_option("--mask-seed", o->eval.mask_seed, "Seed of the fixed evaluation mask")->capture_default_str();
  cmd->add_option("--device", o->eval.device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--precision", o->precision, "fp32 or bf16")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    if (o->eval.batch_size <= 0) throw BadInput("--batch-size must be > 0");
    o->eval.bf16 = engine::is_bf16(o->precision);
    o->eval.device = engine::setup_runtime(o->threads, o->eval.device);
    mlm::EvalResult r = mlm::evaluate_checkpoint(o->model, o->data, o->split, o->eval);
    if (!o->common.quiet) {
      std::fprintf(stderr,
                   "eval: %s on %s/%s: loss %.4f | perplexity %.2f | accuracy %.4f (%lld sequences, %lld masked "
                   "tokens, %.1fs)\n",
                   o->model.c_str(), o->data.c_str(), o->split.c_str(), r.loss, r.perplexity, r.accuracy,
                   (long long)r.sequences, (long long)r.masked, r.seconds);
    }
    if (o->common.json) {
      print_json({{"model", o->model},
                  {"data", o->data},
                  {"split", o->split},
                  {"eval_loss", r.loss},
                  {"eval_perplexity", r.perplexity},
                  {"eval_accuracy", r.accuracy},
                  {"eval_sequences", r.sequences},
                  {"eval_masked_tokens", r.masked},
                  {"eval_batches", r.batches},
                  {"seconds", r.seconds}});
    }
  });
}

}  // namespace bertpt::cli
