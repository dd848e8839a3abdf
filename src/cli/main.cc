// bertpt: pre-train BERT from raw text, in C++. This file only wires the commands together and maps
// errors to exit codes: 0 success, 1 bad input or usage, 2 internal error.
#include <cstdio>
#include <exception>
#include <functional>
#include <new>

#include "cli/commands.h"
#include "cli/dist_flags.h"
#include "cli/stop_signals.h"
#include "cli/version.h"
#include "common/error.h"
#include "common/stop_request.h"
#include "distributed/elastic_error_file.h"
#include "distributed/reported_elsewhere.h"

namespace {

// The first line of an exception's message. LibTorch's c10::Error puts its C++ stack trace after the
// first newline ("Exception raised from ... (most recent call first): frame #0 ..."), which a user
// should not have to read; --verbose shows all of it.
std::string first_line(const std::exception& e, bool* cut) {
  const std::string what = e.what();
  const size_t nl = what.find('\n');
  *cut = nl != std::string::npos;
  return what.substr(0, nl);
}

// Prints "bertpt: error: LINE" (and the hint; not when another rank of the job prints the same) and
// hands the same to torchrun's error file, so that its failure summary names the cause. Returns
// `exit_code`.
int report(const char* kind, const std::string& line, const std::string& hint, int exit_code, bool print = true) {
  if (print) {
    std::fprintf(stderr, "bertpt: %s: %s\n", kind, line.c_str());
    if (!hint.empty()) std::fprintf(stderr, "  hint: %s\n", hint.c_str());
  }
  bertpt::distributed::write_elastic_error_file("bertpt: " + std::string(kind) + ": " + line +
                                                (hint.empty() ? "" : " (hint: " + hint + ")"));
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bertpt;
  CLI::App app{
      "bertpt — pre-train BERT language models from raw text, in C++.\n"
      "Stages: corpus -> tokenizer -> prepare -> train -> eval / fill-mask."};
  app.name("bertpt");
  app.require_subcommand(1);
  app.fallthrough(false);
  app.set_version_flag("--version", std::function<std::string()>(cli::version_string),
                       "Print the versions of bertpt, LibTorch, CUDA and NCCL, and the CPU backend");

  cli::add_corpus_command(app);
  cli::add_prepare_command(app);
  cli::add_data_command(app);
  cli::add_cost_command(app);
  cli::add_tokenizer_command(app);
  cli::add_training_commands(app);

  cli::set_program_args(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An unknown subcommand reaches CLI11 as a leftover argument; name it instead of only saying
    // that a subcommand is required.
    std::vector<std::string> leftover;
    for (const CLI::App* a = &app; a; a = a->get_subcommands().empty() ? nullptr : a->get_subcommands().front()) {
      for (const auto& r : a->remaining()) leftover.push_back(r);
    }
    if (e.get_exit_code() != 0 && !leftover.empty()) {
      return report("error", "unknown command or argument '" + leftover.front() + "'",
                    "run 'bertpt --help' or 'bertpt <command> --help'", 1);
    }
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A usage error (a missing or malformed option, a value out of range) in the one-line form of
    // every other error, naming the command whose --help explains it.
    std::string command = "bertpt";
    for (const CLI::App* a = &app; a; a = a->get_subcommands().empty() ? nullptr : a->get_subcommands().front()) {
      if (a != &app) command += " " + a->get_name();
    }
    return report("error", e.what(), "run '" + command + " --help'", 1);
  } catch (const cli::WorkersFinished& w) {
    return w.status;  // the built-in launcher: the workers' status
  } catch (const Interrupted& e) {
    // A stop signal ended a wait for input before the work began (cli/stop_signals.h): the process
    // ends by that signal, as it would have without the handler.
    std::fprintf(stderr, "bertpt: stopped by %s while %s\n", signal_name(e.signal()).c_str(), e.what());
    std::fflush(stderr);
    cli::end_process_by_signal(e.signal());
  } catch (const Error& e) {
    const bool print = !dynamic_cast<const distributed::ReportedElsewhere*>(&e);  // another rank prints it
    return report("error", e.what(), e.hint(), e.kind() == Error::Kind::BadInput ? 1 : 2, print);
  } catch (const std::bad_alloc&) {
    return report("error", "out of memory", "", 2);
  } catch (const std::exception& e) {
    bool cut = false;
    const std::string line = first_line(e, &cut);
    return report("internal error", cli::verbose_errors() ? e.what() : line,
                  cut && !cli::verbose_errors()
                      ? "rerun with --verbose for the whole message; please report it with the command"
                      : "",
                  2);
  }
  return 0;
}
