// corpus merge against interruptions and concurrent runs: a stopped merge removes its bucket files and
// unfinished output, a killed one's leftovers are removed by the next merge into the same output, and
// a second merge into an output in use fails at once.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <set>

#include "common/dir_lock.h"
#include "common/error.h"
#include "common/test_util.h"
#include "text/corpus_merge.h"

namespace bertpt::text {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

class MergeRobustnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir.file("in"));
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "document number " + std::to_string(i) + " of the corpus\n";
    write_file(dir.file("in/corpus.txt"), text);
    fs::create_directories(dir.file("out"));
  }
  MergeOptions options() {
    MergeOptions o;
    o.corpus.inputs = {dir.file("in/corpus.txt")};
    o.out = dir.file("out/merged.jsonl");
    o.shuffle = true;
    o.seed = 7;
    o.shuffle_memory_bytes = 64 << 10;  // many buckets
    return o;
  }
  TempDir dir;
};

TEST_F(MergeRobustnessTest, AStoppedShuffleRemovesItsBucketsAndItsUnfinishedOutput) {
  for (int stop_after : {100, 30000}) {  // while spilling to buckets, and while writing them out
    MergeOptions o = options();
    std::atomic<int> asked{0};
    bool saw_buckets = false;
    o.stop_requested = [&] {
      if (asked == 50) {
        for (const auto& name : names_in(dir.file("out"))) saw_buckets |= name.find(".buckets.") != std::string::npos;
      }
      return ++asked > stop_after;
    };
    EXPECT_THROW(merge_corpus(o), MergeStopped);
    EXPECT_TRUE(saw_buckets);
    EXPECT_EQ(names_in(dir.file("out")), std::set<std::string>{}) << "stop after " << stop_after;
  }
}

TEST_F(MergeRobustnessTest, LeftoversOfAKilledMergeAreRemovedByTheNext) {
  // What kill -9 of a shuffling merge leaves beside its output.
  const std::string buckets = dir.file("out/merged.jsonl.buckets.999999999");
  fs::create_directories(buckets);
  write_file(buckets + "/0", std::string(5000, 'x'));
  write_file(buckets + "/1", std::string(3000, 'x'));
  write_file(dir.file("out/merged.jsonl.tmp.999999999.0"), std::string(2000, 'y'));
  // Files of other outputs are not touched.
  write_file(dir.file("out/other.jsonl.tmp.999999999.0"), "z");
  write_file(dir.file("out/merged.jsonl.buckets.notapid"), "z");
  MergeResult r = merge_corpus(options());
  EXPECT_EQ(r.leftovers_removed.size(), 2u);
  EXPECT_EQ(r.leftover_bytes_removed, 10000u);
  EXPECT_EQ(names_in(dir.file("out")),
            (std::set<std::string>{"merged.jsonl", "other.jsonl.tmp.999999999.0", "merged.jsonl.buckets.notapid"}));
}

TEST_F(MergeRobustnessTest, ASecondMergeIntoAnOutputInUseFailsAtOnce) {
  write_file(dir.file("out/merged.jsonl"), "earlier output\n");
  DirLock running = DirLock::beside(dir.file("out/merged.jsonl"));
  EXPECT_EQ(error_of([&] { merge_corpus(options()); }),
            dir.file("out/merged.jsonl") + " is in use by bertpt (pid " + std::to_string(::getpid()) + ")");
  EXPECT_EQ(slurp(dir.file("out/merged.jsonl")), "earlier output\n");
  running.release();
  merge_corpus(options());
  EXPECT_EQ(names_in(dir.file("out")), std::set<std::string>{"merged.jsonl"});  // no lock file stays
}

// The CLI: SIGINT or SIGTERM in the middle of a shuffle ends the process by that signal, with its
// bucket files and unfinished output removed. A SIGINT ignored from the start stays ignored.
TEST_F(MergeRobustnessTest, SigintOrSigtermDuringAShuffleLeavesNothingBehind) {
  std::string big;
  for (int copy = 0; copy < 20; ++copy) big += slurp(dir.file("in/corpus.txt"));
  write_file(dir.file("in/corpus.txt"), big);  // ~15 MB: the merge runs for a while
  for (const char* sig : {"INT", "TERM"}) {
    // bash, with SIGINT restored in the background job: a non-interactive shell starts background
    // jobs with SIGINT ignored, and bertpt keeps a signal ignored that was ignored when it started.
    const std::string script =
        "cd " + testing::shell_quote(dir.file("out")) + " || exit 1; (trap - INT; exec " +
        testing::shell_quote(testing::bertpt_bin()) +
        " corpus merge -q -i ../in/corpus.txt --shuffle --shuffle-memory-mb 1 -o merged.jsonl) & pid=$!; "
        "for i in $(seq 1 1000); do ls -d merged.jsonl.buckets.* >/dev/null 2>&1 && break; sleep 0.01; done; "
        "kill -STOP $pid; kill -" +
        std::string(sig) + " $pid; kill -CONT $pid; wait $pid; echo \"status=$?\"";
    auto r = testing::run_shell("bash -c " + testing::shell_quote(script));
    const int expected = std::string(sig) == "INT" ? 128 + SIGINT : 128 + SIGTERM;
    EXPECT_NE(r.out.find("status=" + std::to_string(expected)), std::string::npos) << sig << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("corpus merge interrupted"), std::string::npos) << r.err;
    EXPECT_EQ(names_in(dir.file("out")), std::set<std::string>{}) << sig;
  }
  // sh starts the job with SIGINT ignored: the merge goes on to the end.
  const std::string script = "cd " + testing::shell_quote(dir.file("out")) + " || exit 1; " +
                             testing::shell_quote(testing::bertpt_bin()) +
                             " corpus merge -q -i ../in/corpus.txt --shuffle -o merged.jsonl & pid=$!; "
                             "sleep 0.2; kill -INT $pid; wait $pid; echo \"status=$?\"";
  auto r = testing::run_shell(script);
  EXPECT_NE(r.out.find("status=0"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(names_in(dir.file("out")), std::set<std::string>{"merged.jsonl"});
}

}  // namespace
}  // namespace bertpt::text
