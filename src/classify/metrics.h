// Classification metrics from a confusion matrix, with scikit-learn's definitions:
//   precision_c = TP_c / (TP_c + FP_c), recall_c = TP_c / (TP_c + FN_c), F1_c = 2PR / (P + R),
//   each 0 when its denominator is 0 (sklearn's zero_division=0);
//   macro averages over the classes that occur in the gold labels or the predictions (sklearn's
//   default label set); accuracy = trace / total;
//   Matthews correlation (sklearn's matthews_corrcoef, multiclass from the confusion matrix C with
//   t = row sums, p = column sums, c = trace, s = total): (c·s − t·p) / sqrt((s² − p·p)(s² − t·t)),
//   0 when either factor is 0; binary F1 (two classes: sklearn's f1_score(average="binary") with
//   class id 1 — GLUE's label "1" — as the positive class).
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
  double mcc = 0;                               // Matthews correlation coefficient
  double binary_f1 = 0;                         // two classes only: F1 of class id 1
  std::vector<ClassMetrics> per_class;          // in id order
  std::vector<std::vector<int64_t>> confusion;  // [gold][predicted]

  // {"examples", "accuracy", "macro_precision", "macro_recall", "macro_f1",
  //  "mcc", "binary_f1" (two classes), "per_class": [{"label", "precision", "recall", "f1", "support",
  //  "predicted"}...], "confusion"}
  nlohmann::json to_json() const;
  // The value of "accuracy", "macro_f1", "mcc" or "binary_f1" (BadInput for another name, or for
  // binary_f1 of more than two classes).
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
