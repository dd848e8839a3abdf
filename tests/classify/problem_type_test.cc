// The problem type of a sequence task: detected from the training labels, read from a config.json as
// transformers reads it, and the metrics that may pick the best epoch of each.
#include "classify/problem_type.h"

#include <gtest/gtest.h>

#include "common/test_util.h"

namespace bertpt::classify {
namespace {

std::vector<Example> labelled(const std::vector<std::string>& labels) {
  std::vector<Example> out;
  for (size_t i = 0; i < labels.size(); ++i) out.push_back({"text", "", labels[i], i + 1});
  return out;
}

TEST(ProblemType, AutoIsRegressionWhenEveryLabelIsANumberWithDecimals) {
  EXPECT_EQ(resolve_problem_type("auto", labelled({"5.000", "3.800", "0"})), ProblemType::Regression);
  EXPECT_EQ(resolve_problem_type("auto", labelled({"1e-2", "4"})), ProblemType::Regression);
  EXPECT_EQ(resolve_problem_type("auto", labelled({"0", "1", "1"})), ProblemType::SingleLabel);  // class ids
  EXPECT_EQ(resolve_problem_type("auto", labelled({"3.5", "spam"})), ProblemType::SingleLabel);
  EXPECT_EQ(resolve_problem_type("auto", labelled({"nan", "1.5"})), ProblemType::SingleLabel);   // not finite
  EXPECT_EQ(resolve_problem_type("auto", labelled({" 1.5", "2.5"})), ProblemType::SingleLabel);  // not all of it
  EXPECT_EQ(resolve_problem_type("regression", labelled({"0", "1"})), ProblemType::Regression);
  EXPECT_EQ(resolve_problem_type("single_label_classification", labelled({"0.5", "1.5"})), ProblemType::SingleLabel);
}

TEST(ProblemType, TargetsAreNumbersOrTheLineIsNamed) {
  EXPECT_EQ(regression_targets(labelled({"5.000", "-0.25", "3"}), "t.tsv"), (std::vector<double>{5.0, -0.25, 3.0}));
  EXPECT_EQ(testing::error_of([] {
              regression_targets(labelled({"1.0", "high"}), "t.tsv");
            }),
            "t.tsv:2: the label 'high' is not a number, but the task is regression");
}

TEST(ProblemType, ConfigAsTransformersReadsIt) {
  auto config = [](const char* text) { return problem_type_of_config(nlohmann::json::parse(text)); };
  EXPECT_EQ(config(R"({"problem_type": "regression", "id2label": {"0": "a", "1": "b"}})"), ProblemType::Regression);
  EXPECT_EQ(config(R"({"id2label": {"0": "LABEL_0"}})"), ProblemType::Regression);  // num_labels == 1
  EXPECT_EQ(config(R"({"id2label": {"0": "a", "1": "b"}})"), ProblemType::SingleLabel);
  EXPECT_EQ(config(R"({"problem_type": "single_label_classification", "id2label": {"0": "a"}})"),
            ProblemType::SingleLabel);
}

TEST(ProblemType, MetricForBestFitsTheTask) {
  EXPECT_EQ(metric_for_best("auto", ProblemType::Regression), "pearson");
  EXPECT_EQ(metric_for_best("auto", ProblemType::SingleLabel), "accuracy");
  EXPECT_EQ(metric_for_best("spearman", ProblemType::Regression), "spearman");
  EXPECT_EQ(metric_for_best("mcc", ProblemType::SingleLabel), "mcc");
  EXPECT_NE(testing::error_of([] { metric_for_best("pearson", ProblemType::SingleLabel); }).find("regression metric"),
            std::string::npos);
  EXPECT_NE(testing::error_of([] { metric_for_best("macro_f1", ProblemType::Regression); }).find("classification"),
            std::string::npos);
}

}  // namespace
}  // namespace bertpt::classify
