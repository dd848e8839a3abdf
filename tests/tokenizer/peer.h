// Access to the conformance peer: Hugging Face tokenizers (the Python binding of its Rust core,
// pinned in requirements/hf-peer.txt beside transformers) run by the scripts in tests/peer/ with the
// project's .venv interpreter. scripts/setup-test-peers installs it; without it the peer tests skip
// (GTEST_SKIP) and say so, except in CI (CI=true), where they fail.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/test_util.h"

namespace bertpt::testing {

inline std::string peer_dir() { return source_dir() + "/tests/peer"; }

// The peer's interpreter: $BERTPT_PEER_PYTHON, else <source>/.venv/bin/python.
inline std::string peer_python() {
  const char* p = std::getenv("BERTPT_PEER_PYTHON");
  return p && *p ? p : source_dir() + "/.venv/bin/python";
}

// The tokenizers version requirements/hf-peer.txt pins ("" when it pins none).
inline std::string peer_pinned_version() {
  std::ifstream req(source_dir() + "/requirements/hf-peer.txt");
  for (std::string line; std::getline(req, line);) {
    if (line.rfind("tokenizers==", 0) == 0) return line.substr(12);
  }
  return "";
}

// Why the peer cannot run ("" when it can): no interpreter, no tokenizers in it, or another
// version than requirements/hf-peer.txt pins. Checked once per process.
inline const std::string& peer_problem() {
  static const std::string problem = []() -> std::string {
    const std::string pinned = peer_pinned_version();
    if (pinned.empty()) return "requirements/hf-peer.txt pins no tokenizers version";
    const std::string python = peer_python();
    const CommandResult r = run_shell(shell_quote(python) + " -c 'import tokenizers; print(tokenizers.__version__)'");
    std::string have = r.out;
    while (!have.empty() && (have.back() == '\n' || have.back() == '\r')) have.pop_back();
    if (r.exit_code != 0) return "no Python tokenizers in " + python + "; run scripts/setup-test-peers";
    if (have != pinned) {
      return python + " has tokenizers " + have + ", requirements/hf-peer.txt pins " + pinned +
             "; run scripts/setup-test-peers";
    }
    return "";
  }();
  return problem;
}

inline bool peer_installed() { return peer_problem().empty(); }

// Runs `<peer python> tests/peer/<script> <args>` (from tests/peer) and returns its stdout; fails
// the test on a non-zero exit.
inline std::string run_peer(const std::string& script_and_args) {
  CommandResult r = run_shell("cd " + shell_quote(peer_dir()) + " && " + shell_quote(peer_python()) + " " +
                              script_and_args);
  EXPECT_EQ(r.exit_code, 0) << peer_python() << " " << script_and_args << " failed:\n" << r.err;
  return r.out;
}

}  // namespace bertpt::testing

// Skips the current test when the peer is not installed (fails it in CI).
#define BERTPT_REQUIRE_PEER()                                                                          \
  do {                                                                                                 \
    if (!::bertpt::testing::peer_installed()) {                                                        \
      BERTPT_SKIP_UNLESS_CI("HF tokenizers peer not available: " + ::bertpt::testing::peer_problem()); \
    }                                                                                                  \
  } while (0)
