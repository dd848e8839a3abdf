#include "classify/problem_type.h"

#include <cmath>
#include <cstdlib>

#include "common/error.h"

namespace bertpt::classify {

namespace {

// The whole of `text` as a finite number (strtod's syntax), or nothing.
bool parse_finite(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

bool is_classification_metric(const std::string& m) {
  return m == "accuracy" || m == "macro_f1" || m == "mcc" || m == "binary_f1";
}

bool is_regression_metric(const std::string& m) {
  return m == "pearson" || m == "spearman" || m == "pearson_spearman_mean";
}

}  // namespace

const char* problem_type_name(ProblemType type) {
  return type == ProblemType::Regression ? "regression" : "single_label_classification";
}

ProblemType resolve_problem_type(const std::string& option, const std::vector<Example>& train) {
  if (option == "regression") return ProblemType::Regression;
  if (option == "single_label_classification") return ProblemType::SingleLabel;
  bool fractional = false;
  for (const Example& e : train) {
    double v = 0;
    if (!parse_finite(e.label, v)) return ProblemType::SingleLabel;
    fractional = fractional || e.label.find_first_of(".eE") != std::string::npos;
  }
  return fractional ? ProblemType::Regression : ProblemType::SingleLabel;
}

std::vector<double> regression_targets(const std::vector<Example>& examples, const std::string& source) {
  std::vector<double> targets(examples.size());
  for (size_t i = 0; i < examples.size(); ++i) {
    if (!parse_finite(examples[i].label, targets[i])) {
      throw BadInput(source + ":" + std::to_string(examples[i].line) + ": the label '" + examples[i].label +
                         "' is not a number, but the task is regression",
                     "every label of a regression task is a number (STS-B: 0.0 to 5.0); for classes pass "
                     "--problem-type single_label_classification");
    }
  }
  return targets;
}

ProblemType problem_type_of_config(const nlohmann::json& config) {
  if (config.is_object() && config.contains("problem_type") && config["problem_type"].is_string()) {
    return config["problem_type"] == "regression" ? ProblemType::Regression : ProblemType::SingleLabel;
  }
  const bool one_label = config.is_object() && config.contains("id2label") && config["id2label"].size() == 1;
  return one_label ? ProblemType::Regression : ProblemType::SingleLabel;
}

std::string metric_for_best(const std::string& option, ProblemType type) {
  const bool regression = type == ProblemType::Regression;
  if (option == "auto") return regression ? "pearson" : "accuracy";
  if (regression && !is_regression_metric(option)) {
    throw BadInput("--metric-for-best " + option + " is a classification metric, but the task is regression",
                   "use pearson, spearman or pearson_spearman_mean (GLUE's STS-B)");
  }
  if (!regression && !is_classification_metric(option)) {
    throw BadInput("--metric-for-best " + option + " is a regression metric, but the task is classification",
                   "use accuracy, macro_f1, mcc or binary_f1");
  }
  return option;
}

}  // namespace bertpt::classify
