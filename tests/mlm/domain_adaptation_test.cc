// The reduced domain-adaptation experiment (bench/domain-adaptation.sh QUICK=1: bert-tiny, a short
// pre-training, one task, one seed): the whole pipeline — corpora, tokenizers, prepare, pre-train,
// fine-tune, report — runs, and fine-tuning beats the majority-class baseline. The full experiment
// and its results: docs/domain-adaptation.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "common/test_util.h"

namespace bertpt::testing {
namespace {

TEST(DomainAdaptationQuick, PipelineRunsAndFineTuningBeatsTheMajorityClass) {
  // The repository's excerpts (tests/fixtures/corpora) unless BERTPT_SHARED_DATA names the full corpora.
  const std::string data = shared_data_dir();
  ASSERT_TRUE(std::filesystem::exists(data + "/sms_spam/SMSSpamCollection")) << "no corpora in " << data;
  TempDir dir;
  CommandResult r = run_shell("QUICK=1 THREADS=2 OUT=" + shell_quote(dir.file("out")) +
                              " BERTPT=" + shell_quote(bertpt_bin()) + " DATA_DIR=" + shell_quote(data) + " " +
                              shell_quote(source_dir() + "/bench/domain-adaptation.sh"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // summary.tsv: header, then task arm seeds acc_mean acc_std f1_mean f1_std majority.
  std::istringstream in(slurp(dir.file("out/summary.tsv")));
  std::string line;
  std::getline(in, line);
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string task, arm;
    int seeds = 0;
    double acc = 0, acc_std = 0, f1 = 0, f1_std = 0, majority = 0;
    f >> task >> arm >> seeds >> acc >> acc_std >> f1 >> f1_std >> majority;
    EXPECT_EQ(task, "sms");
    EXPECT_EQ(seeds, 1);
    EXPECT_GT(majority, 0.8) << line;  // SMS spam is ~87% ham
    EXPECT_GT(acc, majority) << arm << " does not beat the majority class: " << line;
    EXPECT_GT(f1, 0.5) << line;  // the majority class alone has macro-F1 < 0.5
    ++rows;
  }
  EXPECT_EQ(rows, 2) << slurp(dir.file("out/summary.tsv"));  // general and scratch
}

}  // namespace
}  // namespace bertpt::testing
