// Outputs appear complete or not at all: write to a temporary name beside the target, fsync, rename
// into place, fsync the directory. An AtomicFile that is destroyed without commit() removes its
// temporary, so a killed or failed run never leaves something that looks finished.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bertpt {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  void write(std::string_view s) { write(s.data(), s.size()); }
  // Flushes, fsyncs and renames into place. After it the object is inert.
  void commit();
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
};

// Writes the whole of `content` to `path` atomically.
void write_file_atomic(const std::string& path, std::string_view content);

// A unique temporary name beside `path` (same directory, so rename() is atomic).
std::string temp_name_for(const std::string& path);

// Whether `name` (a file name, no directory) is one temp_name_for() makes, "TARGET.tmp.PID.N"; then
// `target`, when given, receives TARGET. A run that holds an output's lock (dir_lock.h) removes the
// ones a killed run left behind.
bool is_temp_name(const std::string& name, std::string* target = nullptr);

// fsync of a directory, so a rename inside it is durable.
void fsync_directory(const std::string& dir);

// Builds a directory atomically: `fill(tmp)` writes its files into the empty directory `tmp` (created
// here; `tmp` must be in the same parent as `dir`, so rename() is atomic), which is then fsynced and
// renamed to `dir` (replace_directory). On any error `tmp` is removed and the error rethrown
// (filesystem errors as BadInput naming `dir`, with `hint`).
void write_directory_atomic(const std::string& dir, const std::string& tmp, const std::string& aside,
                            const std::function<void(const std::string& tmp)>& fill, const std::string& hint);

// Puts the complete directory `tmp` in the place of `dir` (same parent). An existing `dir` is
// exchanged with `tmp` in one atomic renameat2(RENAME_EXCHANGE) and then deleted; where the
// filesystem cannot exchange, it is moved aside to `aside` first (rename() cannot replace a
// non-empty directory) and deleted after — then, for the moment between the two renames, only
// `aside` holds it. Throws std::filesystem::filesystem_error.
void replace_directory(const std::string& tmp, const std::string& dir, const std::string& aside);

// Writes the files of a directory as one set: `fill(into)` writes them into `into`, a new directory
// beside `dir` (PARENT/.NAME.tmp.PID.N), which then takes the place of `dir` (replace_directory), so
// that a run killed or failing at any point leaves `dir` as it was or complete, never a mix of old
// and new files. The entries of an existing `dir` other than `owned` (the names `fill` writes) are
// carried over into the new directory (hard links where possible), with the directory's permissions.
// Leftovers of a save killed earlier (by a process that is gone) are cleaned up first; when `dir`
// is missing because such a save was killed between its two renames, the old directory is put back.
// `dir` that is the working directory or holds it cannot be renamed away: there `fill` writes in
// place. Filesystem errors are BadInput naming `dir`, with `hint`.
void write_directory_set(const std::string& dir, const std::vector<std::string>& owned,
                         const std::function<void(const std::string& into)>& fill, const std::string& hint);

// Reads a whole file; throws BadInput naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace bertpt
