// Classification metrics against values worked out by hand with scikit-learn's definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "classify/metrics.h"
#include "common/error.h"

namespace bertpt::classify {
namespace {

// Fills a matrix from counts[gold][predicted].
ConfusionMatrix matrix_of(const std::vector<std::vector<int64_t>>& counts) {
  ConfusionMatrix m(counts.size());
  for (size_t g = 0; g < counts.size(); ++g) {
    for (size_t p = 0; p < counts.size(); ++p) {
      for (int64_t k = 0; k < counts[g][p]; ++k) m.add(int64_t(g), int64_t(p));
    }
  }
  return m;
}

TEST(Metrics, ThreeClassesByHand) {
  // gold \ predicted   A  B  C   support
  //   A                4  1  1   6
  //   B                1  3  0   4
  //   C                0  2  3   5
  //   predicted        5  6  4   total 15, correct 4 + 3 + 3 = 10
  // A: P = 4/5 = 0.8,  R = 4/6,       F1 = 2*4/(5+6) = 8/11
  // B: P = 3/6 = 0.5,  R = 3/4,       F1 = 2*3/(6+4) = 0.6
  // C: P = 3/4 = 0.75, R = 3/5 = 0.6, F1 = 2*3/(4+5) = 2/3
  // accuracy 10/15; macro P = (0.8 + 0.5 + 0.75)/3 = 0.683333; macro R = (4/6 + 3/4 + 3/5)/3 =
  // 0.672222; macro F1 = (8/11 + 0.6 + 2/3)/3 = 0.664646
  const ConfusionMatrix cm = matrix_of({{4, 1, 1}, {1, 3, 0}, {0, 2, 3}});
  const ClassificationMetrics m = cm.metrics({"A", "B", "C"});
  EXPECT_EQ(m.examples, 15);
  EXPECT_NEAR(m.accuracy, 10.0 / 15, 1e-12);
  ASSERT_EQ(m.per_class.size(), 3u);
  EXPECT_EQ(m.per_class[0].label, "A");
  EXPECT_NEAR(m.per_class[0].precision, 0.8, 1e-12);
  EXPECT_NEAR(m.per_class[0].recall, 4.0 / 6, 1e-12);
  EXPECT_NEAR(m.per_class[0].f1, 8.0 / 11, 1e-12);
  EXPECT_EQ(m.per_class[0].support, 6);
  EXPECT_EQ(m.per_class[0].predicted, 5);
  EXPECT_NEAR(m.per_class[1].precision, 0.5, 1e-12);
  EXPECT_NEAR(m.per_class[1].recall, 0.75, 1e-12);
  EXPECT_NEAR(m.per_class[1].f1, 0.6, 1e-12);
  EXPECT_EQ(m.per_class[1].predicted, 6);
  EXPECT_NEAR(m.per_class[2].precision, 0.75, 1e-12);
  EXPECT_NEAR(m.per_class[2].recall, 0.6, 1e-12);
  EXPECT_NEAR(m.per_class[2].f1, 2.0 / 3, 1e-12);
  EXPECT_EQ(m.per_class[2].support, 5);
  EXPECT_NEAR(m.macro_precision, 0.683333333, 1e-8);
  EXPECT_NEAR(m.macro_recall, 0.672222222, 1e-8);
  EXPECT_NEAR(m.macro_f1, 0.664646465, 1e-8);
  EXPECT_EQ(m.confusion, cm.counts());
  EXPECT_EQ(m.get("accuracy"), m.accuracy);
  EXPECT_EQ(m.get("macro_f1"), m.macro_f1);
  EXPECT_THROW(m.get("f1"), BadInput);
}

TEST(Metrics, ZeroDivisionCountsAsZero) {
  // gold \ predicted   x  y
  //   x                3  0
  //   y                2  0     y is never predicted: P_y = 0/0 -> 0, R_y = 0/2 = 0, F1_y = 0
  // x: P = 3/5, R = 3/3 = 1, F1 = 2*3/(5+3) = 0.75; macro F1 = (0.75 + 0)/2 = 0.375
  const ClassificationMetrics m = matrix_of({{3, 0}, {2, 0}}).metrics({"x", "y"});
  EXPECT_EQ(m.per_class[1].precision, 0.0);
  EXPECT_EQ(m.per_class[1].recall, 0.0);
  EXPECT_EQ(m.per_class[1].f1, 0.0);
  EXPECT_NEAR(m.per_class[0].precision, 0.6, 1e-12);
  EXPECT_NEAR(m.per_class[0].f1, 0.75, 1e-12);
  EXPECT_NEAR(m.macro_precision, 0.3, 1e-12);
  EXPECT_NEAR(m.macro_f1, 0.375, 1e-12);
  EXPECT_NEAR(m.accuracy, 0.6, 1e-12);

  // Nothing at all: zeros, never NaN.
  const ClassificationMetrics empty = ConfusionMatrix(2).metrics({"x", "y"});
  EXPECT_EQ(empty.examples, 0);
  EXPECT_EQ(empty.accuracy, 0.0);
  EXPECT_EQ(empty.macro_f1, 0.0);
  EXPECT_FALSE(std::isnan(empty.macro_precision));
}

TEST(Metrics, AbsentClassIsNotInTheMacroAverage) {
  // gold \ predicted   a  b  c
  //   a                3  1  0
  //   b                1  1  0
  //   c                0  0  0     c: in neither gold nor predictions
  // a: P = R = F1 = 3/4; b: P = R = F1 = 1/2; macro F1 = (0.75 + 0.5)/2 = 0.625 (not 1.25/3)
  const ClassificationMetrics m = matrix_of({{3, 1, 0}, {1, 1, 0}, {0, 0, 0}}).metrics({"a", "b", "c"});
  EXPECT_NEAR(m.macro_f1, 0.625, 1e-12);
  EXPECT_NEAR(m.macro_precision, 0.625, 1e-12);
  EXPECT_NEAR(m.macro_recall, 0.625, 1e-12);
  // A class that is only predicted does count: its precision is 0/1, its recall 0/0 -> 0.
  // Predicted: a 3 + 1 = 4, b 1, c 1. a: P = R = 3/4, F1 = 6/8; b: P = 1, R = 1/2, F1 = 2/3; c: 0.
  // macro F1 = (0.75 + 2/3 + 0)/3 = 0.472222 (without c it would be 0.708333)
  const ClassificationMetrics p = matrix_of({{3, 0, 1}, {1, 1, 0}, {0, 0, 0}}).metrics({"a", "b", "c"});
  EXPECT_NEAR(p.macro_f1, 0.472222222, 1e-8);
  EXPECT_EQ(p.per_class[2].predicted, 1);
  EXPECT_EQ(p.per_class[2].f1, 0.0);
}

TEST(Metrics, JsonAndTable) {
  const ClassificationMetrics m = matrix_of({{4, 1}, {0, 5}}).metrics({"negative", "pos"});
  const nlohmann::json j = m.to_json();
  EXPECT_EQ(j["examples"], 10);
  EXPECT_DOUBLE_EQ(j["accuracy"].get<double>(), 0.9);
  EXPECT_EQ(j["per_class"][1]["label"], "pos");
  EXPECT_EQ(j["per_class"][1]["predicted"], 6);
  EXPECT_EQ(j["per_class"][0]["support"], 5);
  EXPECT_EQ(j["confusion"], nlohmann::json({{4, 1}, {0, 5}}));
  for (const char* key : {"macro_precision", "macro_recall", "macro_f1"}) EXPECT_TRUE(j.contains(key)) << key;

  const std::string table = format_metrics_table(m);
  EXPECT_NE(table.find("accuracy 0.9000"), std::string::npos) << table;
  // Rows: the summary, the column heads, one per class; the last three aligned to one width.
  std::vector<std::string> rows;
  for (size_t b = 0, e; (e = table.find('\n', b)) != std::string::npos; b = e + 1)
    rows.push_back(table.substr(b, e - b));
  ASSERT_EQ(rows.size(), 4u) << table;
  EXPECT_EQ(rows[2].substr(0, 8), "negative");
  EXPECT_EQ(rows[3].substr(0, 9), "pos      ");
  EXPECT_EQ(rows[2].size(), rows[1].size()) << table;
  EXPECT_EQ(rows[3].size(), rows[1].size()) << table;
  EXPECT_NE(rows[3].find("0.8333"), std::string::npos) << table;  // P_pos = 5/6
}

TEST(Metrics, OutOfRangeIdsAreABug) {
  ConfusionMatrix m(2);
  EXPECT_THROW(m.add(2, 0), Error);
  EXPECT_THROW(m.add(0, -1), Error);
  EXPECT_THROW(m.metrics({"only one"}), Error);
}

}  // namespace
}  // namespace bertpt::classify
