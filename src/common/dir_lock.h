// One bertpt at a time per output. Two runs writing into the same output would interleave their
// files into a corrupt result; with a DirLock the second fails at once with one line,
// "OUT is in use by bertpt (pid N)". The lock is an advisory flock(2) on a small lock file, held for
// the DirLock's lifetime: the kernel drops it when the process ends however it ends (exit, crash,
// kill -9), so a lock file left behind by a dead process never blocks anything — the next run takes
// it over (a resume, say). The file holds the holder's pid, for the message, and is removed when the
// lock is released. On a filesystem without flock support the lock is not enforced.
//
//   DirLock lock = DirLock::inside(out_dir);  // DIR/.bertpt.lock: an output directory written in place
//   DirLock lock = DirLock::beside(out_file);  // PARENT/.NAME.bertpt.lock: an output replaced as a whole
#pragma once

#include <string>

namespace bertpt {

class DirLock {
 public:
  // The lock of a directory that is written in place (prepare's DATA, a training run's directory):
  // the lock file is DIR/.bertpt.lock. Creates `dir` (and its parents) when missing. Throws
  // BadInput when `dir` exists and is not a directory, when it cannot be created, or when another
  // DirLock holds it — in this process or another.
  static DirLock inside(const std::string& dir);
  // The lock of an output that is replaced as a whole by a rename — a file, or a directory assembled
  // elsewhere and swapped in — so that a lock file inside it would be swapped away: the lock file is
  // PARENT/.NAME.bertpt.lock beside it. The parent directory must exist. Throws as inside().
  static DirLock beside(const std::string& path);

  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();  // release()

  // Removes the lock file and drops the lock; the object is empty afterwards. Idempotent.
  void release();
  bool held() const { return fd_ >= 0; }
  // The output as given, and the lock file.
  const std::string& output() const { return output_; }
  const std::string& lock_path() const { return lock_path_; }

 private:
  DirLock(std::string output, std::string lock_path);
  std::string output_;
  std::string lock_path_;
  int fd_ = -1;
};

// The name of the lock file inside a directory (DirLock::inside).
constexpr const char* kDirLockName = ".bertpt.lock";

// The lock file DirLock::beside(path) uses: PARENT/.NAME.bertpt.lock.
std::string lock_path_beside(const std::string& path);

}  // namespace bertpt
