#include "common/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace bertpt {

namespace fs = std::filesystem;

std::string temp_name_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

bool is_temp_name(const std::string& name, std::string* target) {
  // TARGET ".tmp." digits "." digits
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return false;
  const size_t dot2 = name.rfind('.', dot - 1);
  if (dot2 == std::string::npos || dot2 + 1 == dot) return false;
  auto digits = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (name[i] < '0' || name[i] > '9') return false;
    }
    return true;
  };
  if (!digits(dot + 1, name.size()) || !digits(dot2 + 1, dot)) return false;
  constexpr std::string_view kTmp = ".tmp";
  if (dot2 < kTmp.size() + 1 || name.compare(dot2 - kTmp.size(), kTmp.size(), kTmp) != 0) return false;
  if (target) *target = name.substr(0, dot2 - kTmp.size());
  return true;
}

void fsync_directory(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // Best effort: some filesystems do not allow opening directories.
  ::fsync(fd);
  ::close(fd);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_path_(temp_name_for(path_)) {
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) {
    throw BadInput("cannot create " + temp_path_ + ": " + std::strerror(errno),
                   "check that the output directory exists and is writable");
  }
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t size) {
  if (!file_) throw Error(Error::Kind::Internal, "write to committed file " + path_);
  if (size && std::fwrite(data, 1, size, file_) != size) {
    throw BadInput("cannot write " + temp_path_ + ": " + std::strerror(errno), "is the disk full?");
  }
}

void AtomicFile::commit() {
  if (!file_) throw Error(Error::Kind::Internal, "double commit of " + path_);
  bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  int err = errno;
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok) {
    std::remove(temp_path_.c_str());
    throw BadInput("cannot write " + path_ + ": " + std::strerror(err), "is the disk full?");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    err = errno;
    std::remove(temp_path_.c_str());
    throw BadInput("cannot rename " + temp_path_ + " to " + path_ + ": " + std::strerror(err));
  }
  fsync_directory(fs::path(path_).parent_path().string());
}

void write_file_atomic(const std::string& path, std::string_view content) {
  AtomicFile f(path);
  f.write(content);
  f.commit();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the path");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw BadInput("cannot read " + path + ": " + std::strerror(errno));
  return ss.str();
}

}  // namespace bertpt

namespace bertpt {

void replace_directory(const std::string& tmp, const std::string& dir, const std::string& aside) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::rename(tmp, dir);
    return;
  }
#ifdef RENAME_EXCHANGE
  // One atomic step where the filesystem can: `dir` and `tmp` trade places.
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(tmp, ec);
    return;
  }
#endif
  // rename() cannot replace a non-empty directory: the old one is moved aside first.
  fs::remove_all(aside, ec);
  fs::rename(dir, aside);
  fs::rename(tmp, dir);
  fs::remove_all(aside, ec);
}

void write_directory_atomic(const std::string& dir, const std::string& tmp, const std::string& aside,
                            const std::function<void(const std::string& tmp)>& fill, const std::string& hint) {
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec) || ec) {
    throw BadInput("cannot create directory " + tmp + ": " + ec.message(),
                   "check that the parent directory is writable");
  }
  try {
    fill(tmp);
    fsync_directory(tmp);
    replace_directory(tmp, dir, aside);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw BadInput("cannot write " + dir + ": " + e.what(), hint);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  const fs::path parent = fs::path(dir).parent_path();
  fsync_directory(parent.empty() ? "." : parent.string());
}

namespace {

// `dir` as an absolute path without a trailing "/" or "/.", the name rename() can move; a symlink to
// a directory is followed, so that the directory is replaced and the link stays.
fs::path directory_path(const std::string& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  std::error_code ec;
  if (fs::is_symlink(p, ec)) {
    const fs::path target = fs::canonical(p, ec);
    if (!ec) return target;
  }
  return p;
}

bool is_or_holds_working_directory(const fs::path& dir) {
  std::error_code ec;
  fs::path q = fs::current_path(ec);
  if (ec) return false;
  for (;; q = q.parent_path()) {
    if (fs::equivalent(q, dir, ec)) return true;
    if (q == q.parent_path()) return false;
  }
}

bool process_alive(long pid) { return pid == ::getpid() || ::kill(pid_t(pid), 0) == 0 || errno == EPERM; }

// PARENT/.NAME.{tmp,old}.PID.N of a set write whose process is gone: removed, except that an "old"
// one goes back in place of a missing `dir` (killed between the two renames of replace_directory).
void recover_interrupted_set_write(const fs::path& dir) {
  const std::string prefix = "." + dir.filename().string() + ".";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());  // "tmp.PID.N" or "old.PID.N"
    const bool old = rest.compare(0, 4, "old.") == 0;
    if (!old && rest.compare(0, 4, "tmp.") != 0) continue;
    if (!is_temp_name("x.tmp." + rest.substr(4))) continue;  // digits where PID and N belong
    const long pid = std::strtol(rest.c_str() + 4, nullptr, 10);
    if (process_alive(pid)) continue;
    std::error_code ec2;
    if (old && !fs::exists(dir, ec2)) {
      fs::rename(e.path(), dir, ec2);
    } else {
      fs::remove_all(e.path(), ec2);
    }
  }
}

// The entries of `dir` that are not `owned`, linked (or copied) into `into`.
void carry_over(const fs::path& dir, const std::vector<std::string>& owned, const std::string& into) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::find(owned.begin(), owned.end(), name) != owned.end()) continue;
    const fs::path to = fs::path(into) / name;
    std::error_code ec;
    fs::copy(e.path(), to,
             fs::copy_options::recursive | fs::copy_options::create_hard_links | fs::copy_options::copy_symlinks, ec);
    if (ec) {  // another filesystem below, or no hard links here
      fs::remove_all(to, ec);
      fs::copy(e.path(), to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
  }
}

}  // namespace

void write_directory_set(const std::string& dir_in, const std::vector<std::string>& owned,
                         const std::function<void(const std::string& into)>& fill, const std::string& hint) {
  const fs::path dir = directory_path(dir_in);
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (ec) throw BadInput("cannot create directory " + dir.parent_path().string() + ": " + ec.message(), hint);
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw BadInput(dir_in + " exists and is not a directory", "choose another output directory");
  }
  recover_interrupted_set_write(dir);
  if (fs::exists(dir, ec) && is_or_holds_working_directory(dir)) {
    fill(dir.string());
    fsync_directory(dir.string());
    return;
  }
  const std::string base = (dir.parent_path() / ("." + dir.filename().string())).string();
  const std::string unique = std::string(temp_name_for("")).substr(std::string(".tmp.").size());  // PID.N
  const bool existed = fs::exists(dir, ec);
  write_directory_atomic(
      dir.string(), base + ".tmp." + unique, base + ".old." + unique,
      [&](const std::string& into) {
        if (existed) carry_over(dir, owned, into);
        fill(into);
        if (existed) fs::permissions(into, fs::status(dir).permissions());  // the old directory's
      },
      hint);
}

}  // namespace bertpt
