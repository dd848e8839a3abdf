// Curves read from bertpt's metrics.jsonl and from transformers' trainer_state.json.
#include "plot/run_curves.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::plot {
namespace {

using bertpt::testing::TempDir;

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  bertpt::testing::write_file(path, text);
}

TEST(RunCurves, BertptMetricsSkipALineCutShortByACrash) {
  const RunCurves c = parse_bertpt_metrics(
      "{\"step\": 10, \"loss\": 9.5, \"mlm_accuracy\": 0.01, \"tokens_per_sec\": 1000, \"learning_rate\": 1e-4}\n"
      "{\"step\": 20, \"eval_loss\": 8.25, \"eval_accuracy\": 0.125}\n"
      "{\"step\": 30, \"loss\": 8.7");
  EXPECT_EQ(c.records, 2u);
  ASSERT_EQ(c.loss.size(), 1u);
  EXPECT_EQ(c.loss[0], std::make_pair(10.0, 9.5));
  ASSERT_EQ(c.eval_loss.size(), 1u);
  EXPECT_EQ(c.eval_loss[0], std::make_pair(20.0, 8.25));
  EXPECT_EQ(c.eval_accuracy[0].second, 0.125);
  EXPECT_EQ(c.tokens_per_sec[0].second, 1000.0);
}

TEST(RunCurves, TrainerStateLogHistory) {
  // The shape transformers' Trainer writes: train records and eval records in one list.
  const RunCurves c = parse_trainer_state(R"({"global_step": 20, "log_history": [
      {"epoch": 0.5, "grad_norm": 3.1, "learning_rate": 4e-05, "loss": 10.25, "step": 10},
      {"epoch": 1.0, "grad_norm": 2.9, "learning_rate": 2e-05, "loss": 9.75, "step": 20},
      {"epoch": 1.0, "eval_loss": 9.5, "eval_runtime": 1.2, "step": 20}]})",
                                          "trainer_state.json");
  EXPECT_EQ(c.source, "transformers");
  EXPECT_EQ(c.records, 3u);
  ASSERT_EQ(c.loss.size(), 2u);
  EXPECT_EQ(c.loss[1], std::make_pair(20.0, 9.75));
  ASSERT_EQ(c.eval_loss.size(), 1u);
  EXPECT_EQ(c.eval_loss[0], std::make_pair(20.0, 9.5));
  EXPECT_EQ(c.learning_rate[0].second, 4e-05);
}

TEST(RunCurves, BadTrainerStateNamesTheFile) {
  const std::string e1 = bertpt::testing::error_of([] { parse_trainer_state("{", "x/trainer_state.json"); });
  EXPECT_NE(e1.find("x/trainer_state.json: not valid JSON"), std::string::npos) << e1;
  const std::string e2 = bertpt::testing::error_of([] { parse_trainer_state("{}", "y.json"); });
  EXPECT_NE(e2.find("y.json: field \"log_history\" is missing"), std::string::npos) << e2;
}

TEST(RunCurves, ReadsARunDirectoryOrATrainerCheckpoint) {
  TempDir tmp;
  put(tmp.file("run/metrics.jsonl"), "{\"step\": 1, \"loss\": 2.0}\n");
  put(tmp.file("hf/checkpoint-5/trainer_state.json"), "{\"log_history\": [{\"step\": 5, \"loss\": 3.0}]}");
  EXPECT_EQ(read_run_curves(tmp.file("run")).source, "bertpt");
  const RunCurves hf = read_run_curves(tmp.file("hf/checkpoint-5"));
  EXPECT_EQ(hf.source, "transformers");
  EXPECT_EQ(hf.label, tmp.file("hf/checkpoint-5"));
  const std::string e = bertpt::testing::error_of([&] { read_run_curves(tmp.file("nothing")); });
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  put(tmp.file("empty/metrics.jsonl"), "");
  EXPECT_NE(bertpt::testing::error_of([&] { read_run_curves(tmp.file("empty")); }).find("no metrics records"),
            std::string::npos);
}

}  // namespace
}  // namespace bertpt::plot
