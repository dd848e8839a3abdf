#include "classify/regression_metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"

namespace bertpt::classify {

namespace {

void check_sizes(const std::vector<double>& x, const std::vector<double>& y, const char* what) {
  if (x.size() != y.size()) {
    throw Error(Error::Kind::Internal,
                std::string(what) + ": " + std::to_string(x.size()) + " values against " + std::to_string(y.size()));
  }
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double rank = double(i + j) / 2 + 1;  // the mean of ranks i+1 .. j+1
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  check_sizes(x, y, "pearson");
  const auto n = double(x.size());
  if (x.size() < 2) return std::nan("");
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
  }
  if (sxx == 0 || syy == 0) return std::nan("");
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  check_sizes(x, y, "spearman");
  return pearson(average_ranks(x), average_ranks(y));
}

nlohmann::json RegressionMetrics::to_json() const {
  return {{"examples", examples},
          {"pearson", finite_or_null(pearson)},
          {"spearman", finite_or_null(spearman)},
          {"pearson_spearman_mean", finite_or_null((pearson + spearman) / 2)},
          {"mse", finite_or_null(mse)}};
}

double RegressionMetrics::get(const std::string& metric) const {
  if (metric == "pearson") return pearson;
  if (metric == "spearman") return spearman;
  if (metric == "pearson_spearman_mean") return (pearson + spearman) / 2;
  throw BadInput("unknown metric '" + metric + "'", "use pearson, spearman or pearson_spearman_mean");
}

RegressionMetrics regression_metrics(const std::vector<double>& gold, const std::vector<double>& predicted) {
  check_sizes(gold, predicted, "regression_metrics");
  RegressionMetrics m;
  m.examples = int64_t(gold.size());
  m.pearson = pearson(gold, predicted);
  m.spearman = spearman(gold, predicted);
  double se = 0;
  for (size_t i = 0; i < gold.size(); ++i) se += (gold[i] - predicted[i]) * (gold[i] - predicted[i]);
  m.mse = gold.empty() ? std::nan("") : se / double(gold.size());
  return m;
}

}  // namespace bertpt::classify
