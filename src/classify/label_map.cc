#include "classify/label_map.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

#include "common/error.h"
#include "common/json_fields.h"

namespace bertpt::classify {

namespace {

std::optional<int64_t> parse_integer(const std::string& s) {
  int64_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

// run_glue.py sorts the label list; integer labels sort as numbers there ("2" before "10"), so they
// do here too. Mixed or textual labels sort by bytes. Ties of equal numbers ("7", "07") fall back to
// bytes so the order is still total.
void sort_labels(std::vector<std::string>& labels) {
  const bool all_integers = std::all_of(labels.begin(), labels.end(),
                                        [](const std::string& l) { return parse_integer(l).has_value(); });
  if (!all_integers) {
    std::sort(labels.begin(), labels.end());
    return;
  }
  std::sort(labels.begin(), labels.end(), [](const std::string& a, const std::string& b) {
    const int64_t x = *parse_integer(a), y = *parse_integer(b);
    return x != y ? x < y : a < b;
  });
}

}  // namespace

LabelMap LabelMap::from_examples(const std::vector<Example>& examples, const std::string& source) {
  std::set<std::string> distinct;
  for (const Example& e : examples) {
    if (e.label.empty()) {
      throw BadInput(at(source, e.line) + ": the example has no label",
                     "every example of a training split needs a label; check --label-field");
    }
    distinct.insert(e.label);
  }
  if (distinct.size() < 2) {
    const std::string what = distinct.empty() ? "no labels" : "a single class '" + *distinct.begin() + "'";
    throw BadInput(source + ": the labels have " + what,
                   "a classifier needs at least two labels; check --label-field and that this is the training split");
  }
  std::vector<std::string> labels(distinct.begin(), distinct.end());
  sort_labels(labels);
  LabelMap map;
  map.labels_ = std::move(labels);
  return map;
}

LabelMap LabelMap::from_labels(std::vector<std::string> labels_in_id_order, const std::string& source) {
  if (labels_in_id_order.empty()) throw BadInput(source + ": no labels", "a classifier needs its class names");
  std::set<std::string> seen;
  for (size_t i = 0; i < labels_in_id_order.size(); ++i) {
    const std::string& label = labels_in_id_order[i];
    if (label.empty()) {
      throw BadInput(source + ": the label of id " + std::to_string(i) + " is empty", "name every class");
    }
    if (!seen.insert(label).second) {
      throw BadInput(source + ": the label '" + label + "' has two ids", "each class needs one name of its own");
    }
  }
  LabelMap map;
  map.labels_ = std::move(labels_in_id_order);
  return map;
}

LabelMap LabelMap::from_config(const nlohmann::json& config, const std::string& source) {
  const char* hint =
      "a classifier's config.json maps every id 0..n-1 to its label: \"id2label\": {\"0\": \"neg\", \"1\": \"pos\"}";
  const std::vector<std::pair<std::string, JsonValue>> id2label =
      JsonFields(config, source, "", hint).object("id2label").entries();
  std::vector<std::string> labels(id2label.size());
  for (const auto& [key, value] : id2label) {
    // Only the canonical decimal spelling, so n distinct keys in range are exactly the ids 0..n-1.
    const auto id = parse_integer(key);
    if (!id || *id < 0 || size_t(*id) >= labels.size() || std::to_string(*id) != key) {
      value.fail("is keyed \"" + key + "\", which is not an id 0.." + std::to_string(labels.size() - 1));
    }
    labels[size_t(*id)] = value.str();
  }
  return from_labels(std::move(labels), source);
}

int64_t LabelMap::id(const std::string& label) const {
  // A handful of classes: a scan beats a hash of the label.
  const auto it = std::find(labels_.begin(), labels_.end(), label);
  return it == labels_.end() ? -1 : int64_t(it - labels_.begin());
}

std::vector<int64_t> LabelMap::ids_of(const std::vector<Example>& examples, const std::string& source) const {
  std::vector<int64_t> ids;
  ids.reserve(examples.size());
  for (const Example& e : examples) {
    const int64_t id = this->id(e.label);
    if (id < 0) {
      const std::string what = e.label.empty() ? "the example has no label" : "unknown label '" + e.label + "'";
      throw BadInput(at(source, e.line) + ": " + what + " (the training labels are: " + name_list(labels_) + ")",
                     "a classifier only knows the classes of its training data; fix the label or add "
                     "examples of it to the training split");
    }
    ids.push_back(id);
  }
  return ids;
}

nlohmann::json LabelMap::id2label_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < labels_.size(); ++i) j[std::to_string(i)] = labels_[i];
  return j;
}

nlohmann::json LabelMap::label2id_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < labels_.size(); ++i) j[labels_[i]] = i;
  return j;
}

}  // namespace bertpt::classify
