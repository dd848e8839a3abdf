// The bertpt command line: main.cc builds the CLI11 app and each command file adds its subcommand.
// A command's callback does the work through the library and reports its result; library errors
// (bertpt::Error) are turned into one-line messages and exit codes by main.cc only.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bertpt::cli {

// Flags every command accepts (common_flags.cc, with the helpers below).
struct CommonFlags {
  bool json = false;   // print the final summary as one JSON object on stdout
  bool quiet = false;  // no progress or summary on stderr
};

// Adds --json, --quiet and --verbose to `cmd`: the first two stored in `flags`, --verbose in the
// process-wide verbose_errors().
void add_common_flags(CLI::App* cmd, CommonFlags& flags);
// Whether --verbose was given: an internal error then shows its whole message (LibTorch's C++ stack
// trace included) instead of its first line.
bool& verbose_errors();

// The process's command line, kept by main() so that a launcher can start copies of it.
void set_program_args(int argc, char** argv);
const std::vector<std::string>& program_args();

// Prints `summary` as one compact JSON line on stdout.
void print_json(const nlohmann::json& summary);

// Registration functions, one per command file.
void add_corpus_command(CLI::App& app);
void add_prepare_command(CLI::App& app);
void add_data_command(CLI::App& app);
void add_cost_command(CLI::App& app);
void add_tokenizer_command(CLI::App& app);
void add_tokenizer_train_subcommand(CLI::App* tokenizer_cmd);  // cmd_tokenizer_train.cc
void add_training_commands(CLI::App& app);  // model_commands.cc: train, eval, fill-mask, plot, bench, finetune ...

}  // namespace bertpt::cli
