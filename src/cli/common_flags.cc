// The helpers every command file shares (cli/commands.h): the common flags, the process's command line
// and the --json output. Kept out of main.cc so that no command calls back into it.
#include <iostream>

#include "cli/commands.h"

namespace bertpt::cli {

bool& verbose_errors() {
  static bool verbose = false;
  return verbose;
}

void add_common_flags(CLI::App* cmd, CommonFlags& flags) {
  cmd->add_flag("--json", flags.json, "Print the final summary as one JSON object on stdout");
  cmd->add_flag("-q,--quiet", flags.quiet, "No progress or summary on stderr");
  cmd->add_flag("--verbose", verbose_errors(), "On an internal error, print LibTorch's whole message and stack trace");
}

namespace {
std::vector<std::string> g_program_args;
}  // namespace

void set_program_args(int argc, char** argv) { g_program_args.assign(argv, argv + argc); }
const std::vector<std::string>& program_args() { return g_program_args; }

void print_json(const nlohmann::json& summary) {
  std::cout << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace bertpt::cli
