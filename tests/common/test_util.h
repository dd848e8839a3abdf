// Helpers shared by the test binaries: scratch directories, files, and running the bertpt CLI.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bertpt::testing {

// A fresh directory under $TMPDIR, removed with its contents when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // path()/name
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, std::string_view content);
std::string slurp(const std::string& path);

// Compresses `data` with the named codec ("gzip", "zstd", "xz", "bzip2") using the library itself.
std::string compress(std::string_view data, const std::string& codec);

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `bertpt <args>` (args is a shell-quoted string) with stdin from /dev/null.
CommandResult run_bertpt(const std::string& args);
// Runs a shell command line.
CommandResult run_shell(const std::string& command);

// Path of the bertpt binary (env BERTPT_BIN, set by CTest) and of the source tree.
std::string bertpt_bin();
std::string source_dir();
// The corpora the tests read: env BERTPT_SHARED_DATA (a copy of ../shared/data's layout), else the
// excerpts in the repository (tests/fixtures/corpora, cut from it by its cut.sh).
std::string shared_data_dir();

// Whether this is a CI run (CI=true): there a missing peer or corpus is a failure, not a skip.
bool in_ci();

}  // namespace bertpt::testing

// Skips the test with `message` when something it needs (a peer, a corpus, a tool) is missing;
// in CI (CI=true) fails it instead, so that nothing CI should check goes unchecked.
#define BERTPT_SKIP_UNLESS_CI(message)                         \
  do {                                                         \
    if (::bertpt::testing::in_ci()) GTEST_FAIL() << (message); \
    GTEST_SKIP() << (message);                                 \
  } while (0)

namespace bertpt::testing {

// The message of the BadInput that `f` throws, or "(no error)" when it throws none.
std::string error_of(const std::function<void()>& f);

// The bytes of a hex string ("0d00ff" -> "\x0d\x00\xff"), for test vectors.
std::string from_hex(std::string_view hex);

// Single-quotes `s` for the shell.
std::string shell_quote(const std::string& s);

// Starts `bertpt <args>` (a training command of a long run), waits until it has written a record to
// `metrics_path`, sends it SIGINT and waits for it: the result's out holds "rc=N", its exit code.
CommandResult interrupt_after_first_log(const std::string& args, const std::string& metrics_path);
// The checkpoint-* directories of a run directory, and whether each is complete (has its DONE marker).
std::vector<std::pair<std::string, bool>> checkpoints_in(const std::string& run_dir);

}  // namespace bertpt::testing
