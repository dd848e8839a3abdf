// The run log's automatic interval and TensorBoard's tag names.
#include "engine/run_log.h"

#include <gtest/gtest.h>

namespace bertpt::engine {
namespace {

// --logging-steps 0: about 30 records whatever the run's length, at most `cap` steps apart.
TEST(RunLog, AutomaticIntervalGivesAboutThirtyRecords) {
  EXPECT_EQ(auto_logging_steps(12, 100), 1);  // a 12-step run logs every step
  EXPECT_EQ(auto_logging_steps(60, 100), 2);  // README's 60-step run: 30 records
  EXPECT_EQ(auto_logging_steps(1000, 100), 34);
  EXPECT_EQ(auto_logging_steps(100000, 100), 100);  // the guide's long run: every 100 steps, as before
  EXPECT_EQ(auto_logging_steps(100000, 50), 50);
  EXPECT_EQ(auto_logging_steps(0, 100), 1);
  for (int64_t steps : {1, 7, 30, 31, 59, 61, 900, 2999, 3000}) {
    const int64_t every = auto_logging_steps(steps, 100), records = (steps + every - 1) / every;
    EXPECT_GE(records, std::min<int64_t>(steps, 15)) << steps;
    EXPECT_LE(records, 30) << steps;
  }
}

TEST(RunLog, TensorBoardTagsAreTheTrainersOwn) {
  EXPECT_EQ(tensorboard_tag("loss"), "train/loss");
  EXPECT_EQ(tensorboard_tag("eval_loss"), "eval/loss");
  EXPECT_EQ(tensorboard_tag("step"), "");
}

}  // namespace
}  // namespace bertpt::engine
