#include "data/phase_schedule.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/test_util.h"

namespace bertpt::data {
namespace {

TEST(PhaseSchedule, SharesBecomeStepRangesThatCoverTheRun) {
  const PhaseSchedule s = parse_phase_schedule("128:0.9,512:0.1", 1000);
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].seq_len, 128u);
  EXPECT_EQ(s.phases[0].begin_step, 0);
  EXPECT_EQ(s.phases[0].end_step, 900);
  EXPECT_EQ(s.phases[1].begin_step, 900);
  EXPECT_EQ(s.phases[1].end_step, 1000);
  EXPECT_EQ(s.phases[0].per_device_batch, 0);  // the run's own
  EXPECT_EQ(s.phase_at(0), 0u);
  EXPECT_EQ(s.phase_at(899), 0u);
  EXPECT_EQ(s.phase_at(900), 1u);
  EXPECT_EQ(s.phase_at(5000), 1u);
  EXPECT_EQ(s.max_seq_len(), 512u);
}

TEST(PhaseSchedule, RoundsBoundariesAndTheLastPhaseEndsAtMaxSteps) {
  // 1/3 of 10 steps: boundaries at round(3.33) = 3 and round(6.67) = 7, the last ends at 10.
  const PhaseSchedule s = parse_phase_schedule("64:0.333333333,128:0.333333333,256:0.333333334:8:2", 10);
  ASSERT_EQ(s.phases.size(), 3u);
  EXPECT_EQ(s.phases[0].end_step, 3);
  EXPECT_EQ(s.phases[1].end_step, 7);
  EXPECT_EQ(s.phases[2].end_step, 10);
  EXPECT_EQ(s.phases[2].per_device_batch, 8);
  EXPECT_EQ(s.phases[2].grad_accum, 2);
  EXPECT_EQ(s.phases[2].steps(), 3);
}

TEST(PhaseSchedule, EmptyTextIsNoSchedule) { EXPECT_TRUE(parse_phase_schedule("", 10).empty()); }

TEST(PhaseSchedule, BadSchedulesNameTheFlagAndThePart) {
  auto message = [](const std::string& text, int64_t steps) {
    return testing::error_of([&] { parse_phase_schedule(text, steps); });
  };
  EXPECT_NE(message("128:0.9,512:0.2", 100).find("add up to"), std::string::npos);
  EXPECT_NE(message("128", 100).find("'128'"), std::string::npos);
  EXPECT_NE(message("128:x,512:0.1", 100).find("share 'x'"), std::string::npos);
  EXPECT_NE(message("4:0.5,512:0.5", 100).find("a length '4'"), std::string::npos);
  EXPECT_NE(message("128:0.5:0,512:0.5", 100).find("batch size '0'"), std::string::npos);
  EXPECT_NE(message("128:0.5,512:0.5:8:1:9", 100).find("'512:0.5:8:1:9'"), std::string::npos);
  EXPECT_NE(message("128:0.99,512:0.01", 10).find("phase 2 (512 tokens) gets no step"), std::string::npos);
  EXPECT_NE(message("128:0.9,512:0.1", 10).find("(no error)"), std::string::npos);
  EXPECT_NE(message("128:0.9,,512:0.1", 10).find("--phase-schedule"), std::string::npos);
}

TEST(PhaseSchedule, LengthsInListsTheLengthFoldersWithAManifest) {
  namespace fs = std::filesystem;
  const testing::TempDir tmp;
  const fs::path dir = tmp.path();
  for (const char* sub : {"seq-512", "seq-128", "seq-64", "seq-x", "other"}) fs::create_directories(dir / sub);
  for (const char* sub : {"seq-512", "seq-128", "seq-x", "other"})
    testing::write_file((dir / sub / "manifest.json").string(), "{}");
  EXPECT_EQ(lengths_in(dir.string()), (std::vector<uint32_t>{128, 512}));  // seq-64 has no manifest: incomplete
  EXPECT_EQ(length_dir(dir.string(), 128), (dir / "seq-128").string());
  EXPECT_TRUE(lengths_in((dir / "missing").string()).empty());
}

}  // namespace
}  // namespace bertpt::data
