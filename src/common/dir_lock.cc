#include "common/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/error.h"

namespace bertpt {

namespace fs = std::filesystem;

namespace {

constexpr const char* kInUseHint = "wait for that run to end (or stop it), or choose another output";

// The pid the holder wrote into the lock file. The holder writes it right after taking the lock, so
// an empty file is read again for a moment before giving up.
std::string holder_pid(int fd) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    char buf[32];
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n > 0) {
      std::string pid;
      for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid.push_back(buf[i]);
      if (!pid.empty()) return pid;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return "unknown";
}

bool same_file(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void write_pid(int fd) {
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    ssize_t n = ::pwrite(fd, pid.data(), pid.size(), 0);
    (void)n;  // the pid is for the message of a second run only
  }
}

// Opens and locks `lock_path`; returns the descriptor. A holder that released the lock removes the
// file, possibly after this process opened it: a lock taken on a file no longer at the path is
// worthless, so it is dropped and taken again on the file that is there now.
int acquire(const std::string& output, const std::string& lock_path) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw BadInput("cannot create the lock file " + lock_path + ": " + std::strerror(errno),
                     "check that the output's directory exists and is writable");
    }
    int rc;
    do {
      rc = ::flock(fd, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const std::string pid = holder_pid(fd);
        ::close(fd);
        throw BadInput(output + " is in use by bertpt (pid " + pid + ")", kInUseHint);
      }
      if (err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS) return fd;  // no flock here: not enforced
      ::close(fd);
      throw BadInput("cannot lock " + lock_path + ": " + std::strerror(err));
    }
    if (same_file(fd, lock_path)) {
      write_pid(fd);
      return fd;
    }
    ::close(fd);
  }
  throw Error(Error::Kind::Internal, "cannot lock " + lock_path + ": the file keeps being replaced");
}

}  // namespace

std::string lock_path_beside(const std::string& path) {
  // Absolute, so that "tok", "./tok/" and "." (the working directory) have a name and a parent.
  fs::path p = fs::absolute(path).lexically_normal();
  if (!p.has_filename() && p != p.root_path()) p = p.parent_path();  // "dir/" -> "dir"
  return (p.parent_path() / ("." + p.filename().string() + ".bertpt.lock")).string();
}

DirLock::DirLock(std::string output, std::string lock_path)
    : output_(std::move(output)), lock_path_(std::move(lock_path)) {
  fd_ = acquire(output_, lock_path_);
}

DirLock DirLock::inside(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw BadInput("output " + dir + " exists and is not a directory", "choose another output directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw BadInput("cannot create output directory " + dir + ": " + ec.message());
  return DirLock(dir, (fs::path(dir) / kDirLockName).string());
}

DirLock DirLock::beside(const std::string& path) { return DirLock(path, lock_path_beside(path)); }

DirLock::DirLock(DirLock&& other) noexcept
    : output_(std::move(other.output_)), lock_path_(std::move(other.lock_path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    release();
    output_ = std::move(other.output_);
    lock_path_ = std::move(other.lock_path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirLock::~DirLock() { release(); }

void DirLock::release() {
  if (fd_ < 0) return;
  // Removed while still locked: a run that opened the file in the meantime notices that its lock is
  // on a removed file and takes the lock again (acquire).
  if (same_file(fd_, lock_path_)) ::unlink(lock_path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace bertpt
