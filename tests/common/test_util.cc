#include "common/test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/error.h"
#include "text/byte_sink.h"

namespace bertpt::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/bertpt-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void write_file(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), std::streamsize(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string compress(std::string_view data, const std::string& codec) {
  text::Compression c = codec == "gzip"    ? text::Compression::Gzip
                        : codec == "zstd"  ? text::Compression::Zstd
                        : codec == "xz"    ? text::Compression::Xz
                        : codec == "bzip2" ? text::Compression::Bzip2
                                           : text::Compression::None;
  TempDir dir;
  std::string path = dir.file("c");
  auto sink = text::open_byte_sink(path, c);
  sink->write(data);
  sink->finish();
  return slurp(path);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

CommandResult run_shell(const std::string& command) {
  TempDir dir;
  std::string out = dir.file("out"), err = dir.file("err");
  std::string full = "( " + command + " ) </dev/null >" + shell_quote(out) + " 2>" + shell_quote(err);
  int status = std::system(full.c_str());
  CommandResult r;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    // The shell reports a child killed by a signal as 128 + signal.
    if (r.exit_code > 128 && r.exit_code < 128 + 65) r.signal = r.exit_code - 128;
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string bertpt_bin() {
  const char* p = std::getenv("BERTPT_BIN");
  if (p && *p) return p;
  return BERTPT_TEST_BIN;
}

std::string source_dir() {
  const char* p = std::getenv("BERTPT_SOURCE_DIR");
  return p && *p ? p : BERTPT_TEST_SOURCE_DIR;
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

std::string shared_data_dir() {
  const char* p = std::getenv("BERTPT_SHARED_DATA");
  return p && *p ? p : source_dir() + "/tests/fixtures/corpora";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const BadInput& e) {
    return e.what();
  }
  return "(no error)";
}

CommandResult run_bertpt(const std::string& args) { return run_shell(shell_quote(bertpt_bin()) + " " + args); }

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

CommandResult interrupt_after_first_log(const std::string& args, const std::string& metrics_path) {
  return run_shell(shell_quote(bertpt_bin()) + " " + args + " & pid=$!; for i in $(seq 1 600); do [ -s " +
                   shell_quote(metrics_path) + " ] && break; sleep 0.05; done; kill -INT $pid; wait $pid; echo rc=$?");
}

std::vector<std::pair<std::string, bool>> checkpoints_in(const std::string& run_dir) {
  std::vector<std::pair<std::string, bool>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(run_dir, ec)) {
    if (e.path().filename().string().rfind("checkpoint-", 0) != 0) continue;
    found.emplace_back(e.path().string(), std::filesystem::exists(e.path() / "DONE", ec));
  }
  return found;
}

}  // namespace bertpt::testing
