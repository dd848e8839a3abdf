// write_directory_set: a directory's files replaced as one set — the old set or the new one, never a
// mix — with the directory's other entries kept, and the leftovers of a killed write cleaned up.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/test_util.h"

namespace bertpt {
namespace {

namespace fs = std::filesystem;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

void write_set(const std::string& dir, const std::string& version) {
  write_directory_set(
      dir, {"a.txt", "b.txt"},
      [&](const std::string& into) {
        write_file_atomic(into + "/a.txt", "a" + version);
        write_file_atomic(into + "/b.txt", "b" + version);
      },
      "hint");
}

TEST(DirectorySet, NewDirectoryThenReplacedKeepingOtherEntries) {
  TempDir tmp;
  const std::string dir = tmp.file("set");
  write_set(dir, "1");
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"a.txt", "b.txt"}));
  write_file(dir + "/notes.md", "mine");
  fs::create_directories(dir + "/sub");
  write_file(dir + "/sub/x", "deep");
  write_set(dir, "2");
  EXPECT_EQ(slurp(dir + "/a.txt"), "a2");
  EXPECT_EQ(slurp(dir + "/b.txt"), "b2");
  EXPECT_EQ(slurp(dir + "/notes.md"), "mine");
  EXPECT_EQ(slurp(dir + "/sub/x"), "deep");
  EXPECT_EQ(names_in(tmp.path()), (std::set<std::string>{"set"}));  // no temporaries beside it
}

TEST(DirectorySet, AFailureHalfWayLeavesTheOldSetUntouched) {
  TempDir tmp;
  const std::string dir = tmp.file("set");
  write_set(dir, "1");
  EXPECT_THROW(write_directory_set(
                   dir, {"a.txt", "b.txt"},
                   [&](const std::string& into) {
                     write_file_atomic(into + "/a.txt", "a2");  // the new a.txt is written...
                     throw BadInput("disk full");               // ...and the run fails before b.txt
                   },
                   "hint"),
               BadInput);
  EXPECT_EQ(slurp(dir + "/a.txt"), "a1");
  EXPECT_EQ(slurp(dir + "/b.txt"), "b1");
  EXPECT_EQ(names_in(tmp.path()), (std::set<std::string>{"set"}));
}

TEST(DirectorySet, LeftoversOfAKilledWriteAreCleanedUp) {
  TempDir tmp;
  const std::string dir = tmp.file("set");
  write_set(dir, "1");
  // A write killed before its swap left its temporary directory (pid 999999999 is not running).
  fs::create_directories(tmp.file(".set.tmp.999999999.0"));
  write_file(tmp.file(".set.tmp.999999999.0/a.txt"), "half");
  // One whose process is alive (this one) is not ours to remove.
  const std::string live = tmp.file(".set.tmp." + std::to_string(::getpid()) + ".77");
  fs::create_directories(live);
  write_set(dir, "2");
  EXPECT_FALSE(fs::exists(tmp.file(".set.tmp.999999999.0")));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_EQ(slurp(dir + "/a.txt"), "a2");
}

TEST(DirectorySet, AKillBetweenTheTwoRenamesLosesNothing) {
  TempDir tmp;
  const std::string dir = tmp.file("set");
  write_set(dir, "1");
  // Where the filesystem cannot exchange two directories, the old one is moved aside first: a kill
  // right then leaves no `set`, only `.set.old.PID.N`. The next write puts it back before starting,
  // so even a failing write leaves the old set.
  fs::rename(dir, tmp.file(".set.old.999999999.3"));
  EXPECT_THROW(write_directory_set(
                   dir, {"a.txt"}, [](const std::string&) { throw std::runtime_error("fails"); }, "hint"),
               std::runtime_error);
  EXPECT_EQ(slurp(dir + "/a.txt"), "a1");
  EXPECT_EQ(names_in(tmp.path()), (std::set<std::string>{"set"}));
}

TEST(DirectorySet, ASymlinkToTheDirectoryStaysALink) {
  TempDir tmp;
  write_set(tmp.file("real"), "1");
  fs::create_directory_symlink("real", tmp.file("link"));
  write_set(tmp.file("link"), "2");
  EXPECT_TRUE(fs::is_symlink(tmp.file("link")));
  EXPECT_EQ(slurp(tmp.file("real/a.txt")), "a2");
  EXPECT_EQ(names_in(tmp.path()), (std::set<std::string>{"link", "real"}));
}

TEST(DirectorySet, AFileInThePlaceIsRefused) {
  TempDir tmp;
  write_file(tmp.file("set"), "x");
  EXPECT_THROW(write_set(tmp.file("set"), "1"), BadInput);
  EXPECT_EQ(slurp(tmp.file("set")), "x");
}

TEST(AtomicFile, TemporaryNamesAreRecognised) {
  std::string target;
  EXPECT_TRUE(is_temp_name(fs::path(temp_name_for("/d/train-00001.bin")).filename().string(), &target));
  EXPECT_EQ(target, "train-00001.bin");
  EXPECT_TRUE(is_temp_name("out.jsonl.zst.tmp.123.0", &target));
  EXPECT_EQ(target, "out.jsonl.zst");
  for (const char* name : {"out.jsonl", "x.tmp.12", "x.tmp.a.1", "x.tmp..1", "tmp.1.2", "x.tmp.1."}) {
    EXPECT_FALSE(is_temp_name(name)) << name;
  }
}

}  // namespace
}  // namespace bertpt
