// Input paths from hostile trees: a symlink loop is not followed (one warning, each file read once),
// a file reached by two paths is read once, and a FIFO, device or `-` named by itself is a stream
// with one line naming it instead of blocking forever.
#include "text/input_paths.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "common/test_util.h"
#include "common/warning.h"
#include "text/byte_source.h"
#include "text/corpus_reader.h"

namespace bertpt::text {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::TempDir;
using testing::write_file;

std::vector<std::string> paths_of(const std::vector<InputFile>& files) {
  std::vector<std::string> paths;
  for (const InputFile& f : files) paths.push_back(f.path);
  return paths;
}

TEST(InputPaths, ASymlinkLoopIsNotFollowedAndWarnedAboutOnce) {
  TempDir dir;
  const std::string root = dir.file("corpus");
  fs::create_directories(root + "/sub");
  write_file(root + "/a.txt", "alpha\n");
  write_file(root + "/sub/b.txt", "beta\n");
  fs::create_directory_symlink("..", root + "/sub/loop");  // corpus/sub/loop -> corpus
  WarningCapture warnings;
  const std::vector<InputFile> files = expand_input(root);
  EXPECT_EQ(paths_of(files), (std::vector<std::string>{root + "/a.txt", root + "/sub/b.txt"}));
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_EQ(warnings.messages()[0], "input " + root + ": " + root + "/sub/loop is a symlink loop back to " + root +
                                        "; not followed (each file is read once)");
  // Read through the corpus reader: every document once.
  CorpusOptions o;
  o.inputs = {root};
  CorpusReader reader(o);
  Document doc;
  std::vector<std::string> docs;
  while (reader.next(doc)) docs.emplace_back(doc.text);
  EXPECT_EQ(docs, (std::vector<std::string>{"alpha", "beta"}));
}

TEST(InputPaths, ASelfLoopAndMutualLoops) {
  TempDir dir;
  const std::string root = dir.file("c");
  fs::create_directories(root + "/x");
  fs::create_directories(root + "/y");
  write_file(root + "/x/f.txt", "f\n");
  fs::create_directory_symlink("../y", root + "/x/to_y");
  fs::create_directory_symlink("../x", root + "/y/to_x");
  fs::create_directory_symlink(".", root + "/self");
  WarningCapture warnings;
  EXPECT_EQ(paths_of(expand_input(root)), (std::vector<std::string>{root + "/x/f.txt"}));
  EXPECT_EQ(warnings.messages().size(), 2u);  // self, and x/to_y/to_x back to x
}

TEST(InputPaths, AFileReachedByTwoPathsIsReadOnce) {
  TempDir dir;
  const std::string root = dir.file("c");
  fs::create_directories(root + "/real");
  write_file(root + "/real/f.txt", "f\n");
  fs::create_directory_symlink("real", root + "/alias");           // the same directory twice
  fs::create_symlink("real/f.txt", root + "/link.txt");            // the same file under another name
  fs::create_hard_link(root + "/real/f.txt", root + "/hard.txt");  // and once more, hard-linked
  WarningCapture warnings;
  EXPECT_EQ(paths_of(expand_input(root)), (std::vector<std::string>{root + "/alias/f.txt"}));
  EXPECT_TRUE(warnings.messages().empty());  // not a loop
}

TEST(InputPaths, AStreamNamedByItselfIsOneStreamInput) {
  TempDir dir;
  const std::string fifo = dir.file("stream");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<InputFile> files = expand_input(fifo);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(files[0].stream);
  EXPECT_EQ(files[0].path, fifo);
  files = expand_input("-");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(files[0].stream);
  EXPECT_EQ(files[0].path, kStdinPath);
  EXPECT_TRUE(expand_input("/dev/zero")[0].stream);  // a character device reads as a stream
  // A glob gives regular files only: a pipe matched by a pattern is refused, not read by surprise.
  EXPECT_EQ(error_of([&] { expand_input(dir.file("str*")); }),
            "input " + fifo + " is a FIFO (named pipe), not a regular file");
  // Inside a directory it is skipped like any other non-file entry.
  write_file(dir.file("a.txt"), "a\n");
  EXPECT_EQ(paths_of(expand_input(dir.path())), (std::vector<std::string>{dir.file("a.txt")}));
  EXPECT_FALSE(expand_input(dir.file("a.txt"))[0].stream);
}

TEST(InputPaths, ABlockDeviceOrDirectoryIsNotAByteSource) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { open_byte_source(dir.path()); }), dir.path() + " is a directory, not a file or a stream");
}

TEST(InputPaths, AFifoOnTheCommandLineIsReadToItsEnd) {
  TempDir dir;
  const std::string fifo = dir.file("stream");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The writer starts after bertpt: opening the FIFO waits for it, as `cat` does.
  auto r = testing::run_shell("(sleep 0.3; printf 'one\\ntwo\\n' > " + testing::shell_quote(fifo) + ") & timeout 20 " +
                              testing::shell_quote(testing::bertpt_bin()) + " corpus stats --json -i " +
                              testing::shell_quote(fifo));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"documents\":2"), std::string::npos) << r.out;
}

// A `datasets` save_to_disk directory: its *.arrow files are the rows; dataset_info.json and
// state.json beside them are metadata, not corpus text. Elsewhere such names are ordinary inputs.
TEST(InputPaths, DatasetsMetadataBesideArrowFilesIsLeftOut) {
  TempDir d;
  fs::create_directories(d.file("saved"));
  fs::create_directories(d.file("plain"));
  write_file(d.file("saved/data-00000-of-00001.arrow"), "x");
  write_file(d.file("saved/dataset_info.json"), "{}");
  write_file(d.file("saved/state.json"), "{}");
  write_file(d.file("plain/state.json"), "{\"text\": \"a\"}");
  EXPECT_EQ(paths_of(expand_input(d.file("saved"))),
            (std::vector<std::string>{d.file("saved/data-00000-of-00001.arrow")}));
  EXPECT_EQ(paths_of(expand_input(d.file("plain"))), (std::vector<std::string>{d.file("plain/state.json")}));
}

}  // namespace
}  // namespace bertpt::text
