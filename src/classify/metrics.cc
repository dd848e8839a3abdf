#include "classify/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.h"

namespace bertpt::classify {

namespace {

// sklearn's zero_division=0: a ratio with nothing to divide by counts as 0, not as NaN.
double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// `s` padded with spaces to `width` (left-aligned when `left`).
std::string pad(const std::string& s, size_t width, bool left) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return left ? s + fill : fill + s;
}

// sklearn's matthews_corrcoef from the confusion matrix [gold][predicted].
double matthews(const std::vector<std::vector<int64_t>>& c) {
  double trace = 0, total = 0, tp_dot = 0, pp_dot = 0, tt_dot = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    double t = 0, p = 0;  // gold and predicted counts of class k
    for (size_t j = 0; j < c.size(); ++j) t += double(c[k][j]), p += double(c[j][k]);
    trace += double(c[k][k]), total += t;
    tp_dot += t * p, pp_dot += p * p, tt_dot += t * t;
  }
  const double cov_tp = trace * total - tp_dot, cov_pp = total * total - pp_dot, cov_tt = total * total - tt_dot;
  return cov_pp * cov_tt == 0 ? 0.0 : cov_tp / std::sqrt(cov_tt * cov_pp);
}

}  // namespace

nlohmann::json ClassificationMetrics::to_json() const {
  nlohmann::json per = nlohmann::json::array();
  for (const ClassMetrics& c : per_class) {
    per.push_back({{"label", c.label},
                   {"precision", c.precision},
                   {"recall", c.recall},
                   {"f1", c.f1},
                   {"support", c.support},
                   {"predicted", c.predicted}});
  }
  nlohmann::json j = {{"examples", examples},
                      {"accuracy", accuracy},
                      {"macro_precision", macro_precision},
                      {"macro_recall", macro_recall},
                      {"macro_f1", macro_f1},
                      {"mcc", mcc},
                      {"per_class", per},
                      {"confusion", confusion}};
  if (per_class.size() == 2) j["binary_f1"] = binary_f1;
  return j;
}

double ClassificationMetrics::get(const std::string& metric) const {
  if (metric == "accuracy") return accuracy;
  if (metric == "macro_f1") return macro_f1;
  if (metric == "mcc") return mcc;
  if (metric == "binary_f1" && per_class.size() == 2) return binary_f1;
  if (metric == "binary_f1") {
    throw BadInput("binary_f1 needs two classes, the labels have " + std::to_string(per_class.size()),
                   "use accuracy, macro_f1 or mcc");
  }
  throw BadInput("unknown metric '" + metric + "'", "use accuracy, macro_f1, mcc or binary_f1");
}

ConfusionMatrix::ConfusionMatrix(size_t num_classes) : counts_(num_classes, std::vector<int64_t>(num_classes, 0)) {}

void ConfusionMatrix::add(int64_t gold, int64_t predicted, int64_t count) {
  const auto n = int64_t(counts_.size());
  if (gold < 0 || gold >= n || predicted < 0 || predicted >= n) {
    throw Error(Error::Kind::Internal, "ConfusionMatrix::add(" + std::to_string(gold) + ", " +
                                           std::to_string(predicted) + ") outside " + std::to_string(n) + " classes");
  }
  counts_[size_t(gold)][size_t(predicted)] += count;
}

ClassificationMetrics ConfusionMatrix::metrics(const std::vector<std::string>& labels) const {
  const size_t n = counts_.size();
  if (labels.size() != n) {
    throw Error(Error::Kind::Internal, "ConfusionMatrix::metrics: " + std::to_string(labels.size()) + " labels for " +
                                           std::to_string(n) + " classes");
  }
  ClassificationMetrics m;
  m.confusion = counts_;
  int64_t correct = 0;
  size_t present = 0;  // classes in gold or predictions: sklearn's default label set for macro
  for (size_t c = 0; c < n; ++c) {
    ClassMetrics cm;
    cm.label = labels[c];
    for (size_t k = 0; k < n; ++k) {
      cm.support += counts_[c][k];
      cm.predicted += counts_[k][c];
    }
    const auto tp = double(counts_[c][c]);
    cm.precision = ratio(tp, double(cm.predicted));
    cm.recall = ratio(tp, double(cm.support));
    // = 2PR / (P + R), written as sklearn computes it so the last bits agree too.
    cm.f1 = ratio(2 * tp, double(cm.predicted + cm.support));
    correct += counts_[c][c];
    m.examples += cm.support;
    if (cm.support > 0 || cm.predicted > 0) {
      ++present;
      m.macro_precision += cm.precision;
      m.macro_recall += cm.recall;
      m.macro_f1 += cm.f1;
    }
    m.per_class.push_back(std::move(cm));
  }
  m.accuracy = ratio(double(correct), double(m.examples));
  m.macro_precision = ratio(m.macro_precision, double(present));
  m.macro_recall = ratio(m.macro_recall, double(present));
  m.macro_f1 = ratio(m.macro_f1, double(present));
  m.mcc = matthews(counts_);
  if (n == 2) m.binary_f1 = m.per_class[1].f1;
  return m;
}

std::string format_metrics_table(const ClassificationMetrics& m) {
  std::string out = "examples " + std::to_string(m.examples) + "  accuracy " + fixed(m.accuracy, 4) + "  macro-F1 " +
                    fixed(m.macro_f1, 4) + "  (macro precision " + fixed(m.macro_precision, 4) + ", recall " +
                    fixed(m.macro_recall, 4) + ")\n";
  size_t label_width = 5;  // "label"
  for (const ClassMetrics& c : m.per_class) label_width = std::max(label_width, c.label.size());
  out += pad("label", label_width, true) + "  precision     recall         f1    support\n";
  for (const ClassMetrics& c : m.per_class) {
    out += pad(c.label, label_width, true) + "  " + pad(fixed(c.precision, 4), 9, false) + "  " +
           pad(fixed(c.recall, 4), 9, false) + "  " + pad(fixed(c.f1, 4), 9, false) + "  " +
           pad(std::to_string(c.support), 9, false) + "\n";
  }
  return out;
}

}  // namespace bertpt::classify
