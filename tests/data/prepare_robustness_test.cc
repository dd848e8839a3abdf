// prepare against concurrent runs and damaged state: a second prepare into a directory in use fails
// at once and changes nothing; a damaged progress.json is an error naming the file and the field;
// half-written files of a killed run are cleaned up by the next one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/dir_lock.h"
#include "common/error.h"
#include "common/test_util.h"
#include "data/dataset.h"
#include "data/prepare.h"
#include "data_test_util.h"
#include "io/manifest.h"

namespace bertpt::data {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

class PrepareRobustnessTest : public testing::PrepareFixture {
 protected:
  // Every file of `d` with its contents.
  std::map<std::string, std::string> contents(const std::string& d) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(d)) {
      if (e.is_regular_file()) files[fs::relative(e.path(), d).string()] = slurp(e.path().string());
    }
    return files;
  }
  // Interrupts a prepare after its first checkpoint: an input that breaks part-way.
  PrepareOptions interrupted(const std::string& out) {
    std::string text;
    for (int copy = 0; copy < 20; ++copy) text += slurp(corpus);
    std::string gz = testing::compress(text, "gzip");
    write_file(dir.file("c.gz"), gz.substr(0, gz.size() * 2 / 3));
    PrepareOptions o = options(out);
    o.corpus.inputs = {dir.file("c.gz")};
    EXPECT_THROW(prepare_dataset(o), BadInput);
    EXPECT_TRUE(fs::exists(o.out + "/progress.json"));
    write_file(dir.file("c.gz"), gz);
    o.resume = true;
    return o;
  }
};

TEST_F(PrepareRobustnessTest, ASecondPrepareIntoADirectoryInUseFailsAtOnceAndChangesNothing) {
  PrepareOptions o = options("data");
  prepare_dataset(o);
  const auto before = contents(o.out);
  {
    DirLock running = DirLock::inside(o.out);  // as a prepare in progress holds it
    for (bool overwrite : {false, true}) {
      o.overwrite = overwrite;
      EXPECT_EQ(error_of([&] { prepare_dataset(o); }),
                o.out + " is in use by bertpt (pid " + std::to_string(::getpid()) + ")");
    }
  }
  EXPECT_EQ(contents(o.out), before);
  // Once the other run is gone the directory is free again, and no lock file stays behind.
  o.overwrite = true;
  prepare_dataset(o);
  EXPECT_FALSE(fs::exists(o.out + "/.bertpt.lock"));
  EXPECT_EQ(contents(o.out), before);
}

TEST_F(PrepareRobustnessTest, ACliPrepareIntoADirectoryInUseIsOneLineAndExit1) {
  PrepareOptions o = options("data");
  DirLock running = DirLock::inside(o.out);
  auto r = testing::run_bertpt("prepare -q -i " + testing::shell_quote(corpus) + " -t " +
                               testing::shell_quote(tok_dir) + " -o " + testing::shell_quote(o.out) + " --seq-len 32");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string line = "bertpt: error: " + o.out + " is in use by bertpt (pid " + std::to_string(::getpid()) +
                           ")\n";
  EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), line);
  EXPECT_EQ(std::set<std::string>({".bertpt.lock"}), [&] {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(o.out)) names.insert(e.path().filename().string());
    return names;
  }());
}

TEST_F(PrepareRobustnessTest, ADamagedProgressJsonNamesTheFileAndTheField) {
  PrepareOptions o = interrupted("data");
  const std::string progress = o.out + "/progress.json";
  const nlohmann::json good = nlohmann::json::parse(slurp(progress));
  struct Damage {
    std::string pointer;
    nlohmann::json value;
    std::string expected;
  };
  const std::vector<Damage> cases = {
      {"/documents_done", "many", "field \"documents_done\" is a string, expected an unsigned integer"},
      {"/splits/train/packer/carry", {1, "x"}, "field \"splits.train.packer.carry[1]\" is a string"},
      {"/splits/valid/packer/stats/rows", -1, "field \"splits.valid.packer.stats.rows\" is -1"},
      {"/splits/train/packer/group_count", nullptr, "field \"splits.train.packer.group_count\" is null"},
      {"/splits/train/shards", "none", "field \"splits.train.shards\" is a string, expected an array"},
      {"/source_tokens", {1, 2, 3}, "field \"source_tokens\" has 3 entries for 1 inputs"},
      {"/splits/train", 5, "field \"splits.train\" is an integer, expected an object"},
  };
  for (const Damage& c : cases) {
    nlohmann::json p = good;
    p[nlohmann::json::json_pointer(c.pointer)] = c.value;
    write_file(progress, p.dump());
    const std::string e = error_of([&] { prepare_dataset(o); });
    EXPECT_EQ(e.rfind(progress + ": " + c.expected, 0), 0u) << c.pointer << ": " << e;
  }
  write_file(progress, "{\"documents_done\": ");
  EXPECT_EQ(error_of([&] { prepare_dataset(o); }).rfind(progress + ": not valid JSON", 0), 0u);
  // Repaired, the resume goes through.
  write_file(progress, good.dump());
  EXPECT_NO_THROW(prepare_dataset(o));
}

TEST_F(PrepareRobustnessTest, HalfWrittenFilesOfAKilledRunAreRemovedOnResume) {
  PrepareOptions o = interrupted("data");
  // What kill -9 during a shard's write or the tokenizer's copy leaves.
  write_file(o.out + "/train-00009.bin.tmp.999999999.4", std::string(1000, 'x'));
  fs::create_directories(o.out + "/.tokenizer.tmp.999999999.0");
  write_file(o.out + "/.tokenizer.tmp.999999999.0/vocab.txt", "half");
  prepare_dataset(o);
  EXPECT_FALSE(fs::exists(o.out + "/train-00009.bin.tmp.999999999.4"));
  EXPECT_FALSE(fs::exists(o.out + "/.tokenizer.tmp.999999999.0"));
  EXPECT_NO_THROW(Dataset(o.out, "train"));
}

}  // namespace
}  // namespace bertpt::data
