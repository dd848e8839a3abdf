// The label <-> class id map of a classifier, stored in config.json as transformers does:
//   "id2label": {"0": "ham", "1": "spam"}, "label2id": {"ham": 0, "spam": 1}
// Ids are assigned in sorted order of the training labels (numerically when every label is an
// integer, else by byte order), like run_glue.py's sorted(label_list), so the same training data
// always gives the same ids. No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "classify/labeled_data.h"

namespace bertpt::classify {

class LabelMap {
 public:
  LabelMap() = default;
  // The distinct labels of `examples` (from `source`, for errors). BadInput when there are fewer
  // than two classes ("a classifier needs at least two labels").
  static LabelMap from_examples(const std::vector<Example>& examples, const std::string& source);
  // From labels in id order (must be distinct and non-empty).
  static LabelMap from_labels(std::vector<std::string> labels_in_id_order, const std::string& source);
  // From a config.json object's id2label (ids 0..n-1, each once); BadInput naming `source` otherwise.
  static LabelMap from_config(const nlohmann::json& config, const std::string& source);

  size_t size() const { return labels_.size(); }
  const std::vector<std::string>& labels() const { return labels_; }
  const std::string& label(int64_t id) const { return labels_.at(size_t(id)); }
  // -1 for a label the map does not know.
  int64_t id(const std::string& label) const;
  // Ids of `examples` (same order). BadInput naming `source`, the line, the label and the known
  // labels when one is not in the map (e.g. a label in valid that train never had).
  std::vector<int64_t> ids_of(const std::vector<Example>& examples, const std::string& source) const;

  nlohmann::json id2label_json() const;  // {"0": "ham", ...}
  nlohmann::json label2id_json() const;  // {"ham": 0, ...}

 private:
  std::vector<std::string> labels_;
};

}  // namespace bertpt::classify
