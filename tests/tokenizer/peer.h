// Access to the conformance peer: Hugging Face tokenizers (npm tokenizers@0.23.2, Rust core) run
// by the Node scripts in tests/peer/. scripts/setup-test-peers installs it; without it the peer
// tests skip (GTEST_SKIP) and say so.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/test_util.h"

namespace bertpt::testing {

inline std::string peer_dir() { return source_dir() + "/tests/peer"; }

inline bool peer_installed() { return std::filesystem::exists(peer_dir() + "/node_modules/tokenizers/package.json"); }

// Runs `node tests/peer/<script> <args>` and returns its stdout; fails the test on a non-zero exit.
inline std::string run_peer(const std::string& script_and_args) {
  CommandResult r = run_shell("cd " + shell_quote(peer_dir()) + " && node " + script_and_args);
  EXPECT_EQ(r.exit_code, 0) << "node " << script_and_args << " failed:\n" << r.err;
  return r.out;
}

}  // namespace bertpt::testing

// Skips the current test when the peer is not installed (fails it in CI).
#define BERTPT_REQUIRE_PEER()                                                                      \
  do {                                                                                             \
    if (!::bertpt::testing::peer_installed()) {                                                    \
      BERTPT_SKIP_UNLESS_CI("HF tokenizers peer not installed (" + ::bertpt::testing::peer_dir() + \
                            "/node_modules missing); run scripts/setup-test-peers");               \
    }                                                                                              \
  } while (0)
