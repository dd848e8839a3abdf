// The model commands (train, eval, fill-mask, plot, bench, finetune, glue, predict, embed), one file each, registered
// together by add_training_commands() (model_commands.cc). All but plot need LibTorch: without it their files are not
// compiled and model_commands.cc registers commands that say so.
#pragma once

#include <CLI/CLI.hpp>

namespace bertpt::cli {

void add_train_command(CLI::App& app);      // cmd_train.cc
void add_eval_command(CLI::App& app);       // cmd_eval.cc
void add_fill_mask_command(CLI::App& app);  // cmd_fill_mask.cc
void add_plot_command(CLI::App& app);       // cmd_plot.cc
void add_bench_command(CLI::App& app);      // cmd_bench.cc
void add_finetune_command(CLI::App& app);   // cmd_finetune.cc
void add_glue_command(CLI::App& app);       // cmd_glue.cc
void add_predict_command(CLI::App& app);    // cmd_predict.cc
void add_embed_command(CLI::App& app);      // cmd_embed.cc

}  // namespace bertpt::cli
