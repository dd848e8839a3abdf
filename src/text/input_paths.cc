#include "text/input_paths.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/error.h"

namespace bertpt::text {

namespace fs = std::filesystem;

namespace {

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

void add_file(const fs::path& p, std::vector<InputFile>& out) {
  std::error_code ec;
  uint64_t size = fs::file_size(p, ec);
  out.push_back({p.string(), ec ? 0 : size});
}

void walk_directory(const fs::path& dir, std::vector<InputFile>& out) {
  std::error_code ec;
  std::vector<fs::path> found;
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec), end;
  if (ec) throw BadInput("cannot read directory " + dir.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw BadInput("cannot read directory " + dir.string() + ": " + ec.message());
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;  // .git, editor swap files and the like are never corpus text
    }
    if (it->is_regular_file(ec)) found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  for (const auto& p : found) add_file(p, out);
}

}  // namespace

std::vector<InputFile> expand_input(const std::string& input) {
  std::vector<InputFile> out;
  std::error_code ec;
  fs::path path(input);
  if (fs::is_directory(path, ec)) {
    walk_directory(path, out);
    if (out.empty()) throw BadInput("input directory " + input + " contains no files", "point --input at text files");
    return out;
  }
  if (fs::exists(path, ec)) {
    add_file(path, out);
    return out;
  }
  if (has_glob_chars(input)) {
    glob_t g{};
    int rc = ::glob(input.c_str(), 0, nullptr, &g);
    if (rc == 0) {
      std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + g.gl_pathc);
      ::globfree(&g);
      std::sort(matches.begin(), matches.end());
      for (const auto& m : matches) {
        if (fs::is_directory(m, ec)) {
          walk_directory(m, out);
        } else {
          add_file(m, out);
        }
      }
      if (!out.empty()) return out;
    } else {
      ::globfree(&g);
    }
    throw BadInput("input pattern " + input + " matches no files",
                   "check the pattern (quote it so the shell does not expand it)");
  }
  throw BadInput("input " + input + " does not exist", "give a file, a directory or a glob pattern");
}

}  // namespace bertpt::text
