#include "text/input_paths.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "common/error.h"
#include "common/warning.h"
#include "text/byte_source.h"

namespace bertpt::text {

namespace fs = std::filesystem;

namespace {

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// A file or directory by identity, whatever the path (symlinks, hard links) that leads to it.
struct FileId {
  dev_t dev;
  ino_t ino;
  bool operator<(const FileId& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
  bool operator==(const FileId& o) const { return dev == o.dev && ino == o.ino; }
};

// Globs and directories give regular files only: a pipe among them would be read by surprise.
void refuse_unless_regular(const std::string& path, const struct stat& st) {
  if (S_ISREG(st.st_mode)) return;
  throw BadInput(std::string("input ") + path + " is " + file_kind_in_words(st.st_mode) + ", not a regular file",
                 "name a stream by itself (-i PATH or -i -), not through a glob");
}

// A stream named by itself: a pipe (FIFO, process substitution) or a character device, read once.
bool is_stream_kind(const struct stat& st) { return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode); }

// The files under a directory, each once: symlinks are followed, but a directory already on the
// way down (a symlink loop) is not entered again — one warning per loop — and a file or directory
// reached by two paths is read by the first in sorted order only. Hidden entries are skipped;
// entries that are neither files nor directories (FIFOs, sockets, devices, broken links) too.
class DirectoryWalk {
 public:
  explicit DirectoryWalk(const fs::path& root) : root_(root) {}

  std::vector<InputFile> files() {
    struct stat st {};
    if (::stat(root_.c_str(), &st) != 0) throw BadInput("cannot read directory " + root_.string());
    walk(root_, FileId{st.st_dev, st.st_ino});
    std::sort(found_.begin(), found_.end(), [](const Found& a, const Found& b) { return a.path < b.path; });
    std::set<FileId> seen;
    std::vector<InputFile> out;
    for (const Found& f : found_) {
      if (seen.insert(f.id).second) out.push_back({f.path.string(), f.size});
    }
    return out;
  }

 private:
  struct Found {
    fs::path path;
    FileId id;
    uint64_t size;
  };

  // The entries of `dir`, sorted, hidden ones left out.
  std::vector<fs::path> entries(const fs::path& dir) const {
    std::error_code ec;
    std::vector<fs::path> list;
    fs::directory_iterator it(dir, ec), end;
    if (ec) throw BadInput("cannot read directory " + dir.string() + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec) throw BadInput("cannot read directory " + dir.string() + ": " + ec.message());
      const std::string name = it->path().filename().string();
      if (!name.empty() && name[0] == '.') continue;  // .git, editor swap files and the like are never corpus text
      list.push_back(it->path());
    }
    std::sort(list.begin(), list.end());
    return list;
  }

  // `datasets`' save_to_disk (and its cache) writes its rows as *.arrow files beside two metadata files,
  // dataset_info.json and state.json: in a directory with .arrow files those two are not corpus text.
  static bool is_datasets_metadata(const fs::path& p, const std::vector<fs::path>& siblings) {
    std::string name = p.filename().string();
    if (name != "dataset_info.json" && name != "state.json") return false;
    return std::any_of(siblings.begin(), siblings.end(), [](const fs::path& s) { return s.extension() == ".arrow"; });
  }

  void walk(const fs::path& dir, FileId id) {
    visited_.insert(id);
    way_down_.push_back({id, dir});
    const std::vector<fs::path> list = entries(dir);
    for (const fs::path& p : list) {
      struct stat st {};
      if (::stat(p.c_str(), &st) != 0) continue;  // a broken symlink
      const FileId child{st.st_dev, st.st_ino};
      if (S_ISREG(st.st_mode)) {
        if (is_datasets_metadata(p, list)) continue;
        found_.push_back({p, child, uint64_t(st.st_size)});
      } else if (S_ISDIR(st.st_mode)) {
        enter(p, child);
      }
    }
    way_down_.pop_back();
  }

  void enter(const fs::path& p, FileId id) {
    for (const auto& [ancestor, path] : way_down_) {
      if (ancestor == id) {
        warn("input " + root_.string() + ": " + p.string() + " is a symlink loop back to " + path.string() +
             "; not followed (each file is read once)");
        return;
      }
    }
    if (visited_.count(id)) return;  // reached before by another path: its files are in already
    walk(p, id);
  }

  fs::path root_;
  std::set<FileId> visited_;
  std::vector<std::pair<FileId, fs::path>> way_down_;  // the directories from root_ to the current one
  std::vector<Found> found_;
};

void add_file(const std::string& path, std::vector<InputFile>& out, bool named_alone) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw BadInput("input " + path + " does not exist", "check the path");
  if (named_alone && is_stream_kind(st)) {
    out.push_back({path, 0, true});
    return;
  }
  refuse_unless_regular(path, st);
  out.push_back({path, uint64_t(st.st_size)});
}

void add_directory(const std::string& dir, std::vector<InputFile>& out) {
  std::vector<InputFile> files = DirectoryWalk(dir).files();
  out.insert(out.end(), files.begin(), files.end());
}

}  // namespace

std::vector<InputFile> expand_input(const std::string& input) {
  std::vector<InputFile> out;
  if (input == "-") return {{kStdinPath, 0, true}};
  std::error_code ec;
  fs::path path(input);
  if (fs::is_directory(path, ec)) {
    add_directory(input, out);
    if (out.empty()) throw BadInput("input directory " + input + " contains no files", "point --input at text files");
    return out;
  }
  if (fs::exists(path, ec)) {
    add_file(input, out, true);
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
          add_directory(m, out);
        } else {
          add_file(m, out, false);
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
