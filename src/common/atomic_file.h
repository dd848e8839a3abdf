// Outputs appear complete or not at all: write to a temporary name beside the target, fsync, rename
// into place, fsync the directory. An AtomicFile that is destroyed without commit() removes its
// temporary, so a killed or failed run never leaves something that looks finished.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

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

// fsync of a directory, so a rename inside it is durable.
void fsync_directory(const std::string& dir);

// Builds a directory atomically: `fill(tmp)` writes its files into the empty directory `tmp` (created
// here; `tmp` must be in the same parent as `dir`, so rename() is atomic), which is then fsynced and
// renamed to `dir`. An existing `dir` is replaced: rename() cannot replace a non-empty directory, so
// it is moved aside to `aside` first and deleted after — `dir` is always either the old complete
// directory or the new complete one. On any error `tmp` is removed and the error rethrown
// (filesystem errors as BadInput naming `dir`, with `hint`).
void write_directory_atomic(const std::string& dir, const std::string& tmp, const std::string& aside,
                            const std::function<void(const std::string& tmp)>& fill, const std::string& hint);

// Reads a whole file; throws BadInput naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace bertpt
