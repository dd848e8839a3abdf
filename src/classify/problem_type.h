// What a sequence task predicts, as transformers' config.problem_type names it:
//   single_label_classification  one class per example: a logit per class, cross-entropy
//   regression                   one number per example (GLUE's STS-B): one output, mean squared error
// No LibTorch here.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classify/labeled_data.h"

namespace bertpt::classify {

enum class ProblemType { SingleLabel, Regression };

// "single_label_classification" or "regression".
const char* problem_type_name(ProblemType type);

// --problem-type: "single_label_classification", "regression", or "auto", which decides from the
// training labels: regression when every label is a number and one at least is written with a
// decimal point or an exponent (STS-B's "3.800"), as `datasets` infers a float column; labels
// such as 0/1 stay classes.
ProblemType resolve_problem_type(const std::string& option, const std::vector<Example>& train);

// The targets of a regression split; BadInput naming `source`, the line and the label when one is
// not a finite number.
std::vector<double> regression_targets(const std::vector<Example>& examples, const std::string& source);

// A model's config.json, as transformers reads it: problem_type when set, else regression when
// num_labels (the size of id2label) is 1.
ProblemType problem_type_of_config(const nlohmann::json& config);

// --metric-for-best resolved for `type`: "auto" is accuracy for classes and pearson for regression;
// BadInput for a metric of the other kind of task.
std::string metric_for_best(const std::string& option, ProblemType type);

}  // namespace bertpt::classify
