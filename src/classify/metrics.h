// Classification metrics from a confusion matrix, with scikit-learn's definitions:
//   precision_c = TP_c / (TP_c + FP_c), recall_c = TP_c / (TP_c + FN_c), F1_c = 2PR / (P + R),
//   each 0 when its denominator is 0 (sklearn's zero_division=0);
//   macro averages over the classes that occur in the gold labels or the predictions (sklearn's
//   default label set); accuracy = trace / total.
// No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bertpt::classify {

struct ClassMetrics {
  std::string label;
  double precision = 0, recall = 0, f1 = 0;
  int64_t support = 0;  // gold examples of the class
  int64_t predicted = 0;
};

struct ClassificationMetrics {
  int64_t examples = 0;
  double accuracy = 0;
  double macro_precision = 0, macro_recall = 0, macro_f1 = 0;
  std::vector<ClassMetrics> per_class;          // in id order
  std::vector<std::vector<int64_t>> confusion;  // [gold][predicted]

  // {"examples", "accuracy", "macro_precision", "macro_recall", "macro_f1",
  //  "per_class": [{"label", "precision", "recall", "f1", "support", "predicted"}...], "confusion"}
  nlohmann::json to_json() const;
  // The value of "accuracy" or "macro_f1" (BadInput for another name).
  double get(const std::string& metric) const;
};

class ConfusionMatrix {
 public:
  explicit ConfusionMatrix(size_t num_classes);
  void add(int64_t gold, int64_t predicted, int64_t count = 1);  // ids in [0, num_classes)
  // `labels[i]` names class i (labels.size() == num_classes).
  ClassificationMetrics metrics(const std::vector<std::string>& labels) const;
  const std::vector<std::vector<int64_t>>& counts() const { return counts_; }

 private:
  std::vector<std::vector<int64_t>> counts_;
};

// A multi-line human table: accuracy / macro-F1 line, then one row per class (precision, recall,
// F1, support).
std::string format_metrics_table(const ClassificationMetrics& m);

}  // namespace bertpt::classify
