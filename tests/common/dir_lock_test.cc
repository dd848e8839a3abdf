// DirLock: one bertpt per output. A second lock on the same output fails at once naming the
// holder's pid; a lock file left by a dead process never blocks; the lock file goes with the lock.
#include "common/dir_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

TEST(DirLock, ASecondLockOnTheSameDirectoryFailsNamingThePid) {
  TempDir dir;
  const std::string out = dir.file("data");
  DirLock first = DirLock::inside(out);  // creates the directory
  EXPECT_TRUE(fs::is_directory(out));
  EXPECT_EQ(first.lock_path(), out + "/.bertpt.lock");
  EXPECT_EQ(slurp(first.lock_path()), std::to_string(::getpid()) + "\n");
  EXPECT_EQ(error_of([&] { DirLock::inside(out); }),
            out + " is in use by bertpt (pid " + std::to_string(::getpid()) + ")");
  // Another output is free.
  DirLock other = DirLock::inside(dir.file("other"));
  EXPECT_TRUE(other.held());
}

TEST(DirLock, ReleasedLockIsFreeAndItsFileGone) {
  TempDir dir;
  const std::string out = dir.file("data");
  {
    DirLock lock = DirLock::inside(out);
    ASSERT_TRUE(fs::exists(out + "/.bertpt.lock"));
  }
  EXPECT_FALSE(fs::exists(out + "/.bertpt.lock"));
  DirLock again = DirLock::inside(out);
  DirLock moved = std::move(again);
  EXPECT_FALSE(again.held());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_TRUE(moved.held());
  moved.release();
  moved.release();
  EXPECT_FALSE(moved.held());
  EXPECT_NO_THROW(DirLock::inside(out));
}

TEST(DirLock, AStaleLockFileOfADeadProcessDoesNotBlock) {
  TempDir dir;
  const std::string out = dir.file("data");
  fs::create_directories(out);
  write_file(out + "/.bertpt.lock", "999999999\n");  // left by a run that was killed
  DirLock lock = DirLock::inside(out);
  EXPECT_EQ(slurp(out + "/.bertpt.lock"), std::to_string(::getpid()) + "\n");
}

TEST(DirLock, HeldByAnotherProcessUntilItIsKilled) {
  TempDir dir;
  const std::string out = dir.file("data");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DirLock lock = DirLock::inside(out);
    char c = 'x';
    (void)!::write(ready[1], &c, 1);
    ::pause();  // holds the lock until killed
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(error_of([&] { DirLock::inside(out); }), out + " is in use by bertpt (pid " + std::to_string(child) + ")");
  ::kill(child, SIGKILL);  // a crash: no destructor runs, the lock file stays
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(fs::exists(out + "/.bertpt.lock"));
  DirLock lock = DirLock::inside(out);  // the kernel released it
  EXPECT_TRUE(lock.held());
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(DirLock, BesideAnOutputThatIsReplacedAsAWhole) {
  TempDir dir;
  EXPECT_EQ(lock_path_beside(dir.file("merged.jsonl")), dir.file(".merged.jsonl.bertpt.lock"));
  EXPECT_EQ(lock_path_beside(dir.file("tok/")), dir.file(".tok.bertpt.lock"));
  EXPECT_EQ(lock_path_beside("tok"), (fs::current_path() / ".tok.bertpt.lock").string());
  EXPECT_EQ(
      lock_path_beside("."),
      (fs::current_path().parent_path() / ("." + fs::current_path().filename().string() + ".bertpt.lock")).string());
  DirLock lock = DirLock::beside(dir.file("merged.jsonl"));
  EXPECT_FALSE(fs::exists(dir.file("merged.jsonl")));  // the output itself is not touched
  EXPECT_EQ(error_of([&] { DirLock::beside(dir.file("merged.jsonl")); }),
            dir.file("merged.jsonl") + " is in use by bertpt (pid " + std::to_string(::getpid()) + ")");
  lock.release();
  EXPECT_FALSE(fs::exists(dir.file(".merged.jsonl.bertpt.lock")));
}

TEST(DirLock, AFileWhereADirectoryBelongsIsBadInput) {
  TempDir dir;
  write_file(dir.file("f"), "x");
  EXPECT_EQ(error_of([&] { DirLock::inside(dir.file("f")); }),
            "output " + dir.file("f") + " exists and is not a directory");
  EXPECT_THROW(DirLock::beside(dir.file("no/such/dir/out.jsonl")), BadInput);
}

}  // namespace
}  // namespace bertpt
