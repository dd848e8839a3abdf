// bertpt: pre-train BERT from raw text, in C++. This file only wires the commands together and maps
// errors to exit codes: 0 success, 1 bad input or usage, 2 internal error.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include "cli/commands.h"
#include "cli/version.h"
#include "common/error.h"

namespace bertpt::cli {

void add_common_flags(CLI::App* cmd, CommonFlags& flags) {
  cmd->add_flag("--json", flags.json, "Print the final summary as one JSON object on stdout");
  cmd->add_flag("-q,--quiet", flags.quiet, "No progress or summary on stderr");
}

void print_json(const nlohmann::json& summary) {
  std::cout << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace bertpt::cli

int main(int argc, char** argv) {
  using namespace bertpt;
  CLI::App app{"bertpt — pre-train BERT language models from raw text, in C++.\n"
               "Stages: corpus -> tokenizer -> prepare -> train -> eval / fill-mask."};
  app.name("bertpt");
  app.require_subcommand(1);
  app.fallthrough(false);
  app.set_version_flag("--version", cli::version_string(), "Print the bertpt and LibTorch versions");

  cli::add_corpus_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "bertpt: error: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
    return e.kind() == Error::Kind::BadInput ? 1 : 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "bertpt: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bertpt: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
