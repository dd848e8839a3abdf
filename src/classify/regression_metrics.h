// Regression metrics (GLUE's STS-B reports Pearson and Spearman), with scipy's definitions:
//   Pearson  r = Σ(x - x̄)(y - ȳ) / sqrt(Σ(x - x̄)² · Σ(y - ȳ)²)   (scipy.stats.pearsonr)
//   Spearman ρ = Pearson r of the ranks, ties given their average rank (scipy.stats.spearmanr,
//              rankdata(method="average"))
//   MSE        mean of (x - y)²
// A constant input has no correlation: NaN, as scipy returns. No LibTorch here.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace bertpt::classify {

// 1-based ranks of `v`, ties sharing the mean of their ranks.
std::vector<double> average_ranks(const std::vector<double>& v);
double pearson(const std::vector<double>& x, const std::vector<double>& y);
double spearman(const std::vector<double>& x, const std::vector<double>& y);

struct RegressionMetrics {
  int64_t examples = 0;
  double pearson = 0, spearman = 0, mse = 0;
  // {"examples", "pearson", "spearman", "pearson_spearman_mean", "mse"}; NaN is written as null.
  nlohmann::json to_json() const;
  // "pearson", "spearman" or "pearson_spearman_mean" (run_glue.py's combined score for STS-B).
  double get(const std::string& metric) const;
};

// `gold` and `predicted` of the same length (an internal error otherwise).
RegressionMetrics regression_metrics(const std::vector<double>& gold, const std::vector<double>& predicted);

}  // namespace bertpt::classify
