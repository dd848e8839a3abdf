// The label <-> id map: sorted ids, the errors for one class and unknown labels, config.json.
#include <gtest/gtest.h>

#include "classify/label_map.h"
#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::classify {
namespace {

using testing::error_of;

std::vector<Example> examples_with(const std::vector<std::string>& labels) {
  std::vector<Example> v;
  for (size_t i = 0; i < labels.size(); ++i) {
    Example e;
    e.text = "text " + std::to_string(i);
    e.label = labels[i];
    e.line = i + 2;  // as if under a header line
    v.push_back(e);
  }
  return v;
}

TEST(LabelMap, IntegerLabelsSortAsNumbers) {
  const auto ex = examples_with({"10", "2", "1", "2", "-3", "10"});
  const LabelMap m = LabelMap::from_examples(ex, "train.tsv");
  EXPECT_EQ(m.labels(), (std::vector<std::string>{"-3", "1", "2", "10"}));
  EXPECT_EQ(m.ids_of(ex, "train.tsv"), (std::vector<int64_t>{3, 2, 1, 2, 0, 3}));
  EXPECT_EQ(m.id("2"), 2);
  EXPECT_EQ(m.label(3), "10");
}

TEST(LabelMap, TextLabelsSortByBytes) {
  EXPECT_EQ(LabelMap::from_examples(examples_with({"pos", "neutral", "neg", "pos"}), "t").labels(),
            (std::vector<std::string>{"neg", "neutral", "pos"}));
  // One non-integer label makes the whole set text: "10" < "2" < "a" in byte order.
  EXPECT_EQ(LabelMap::from_examples(examples_with({"2", "a", "10"}), "t").labels(),
            (std::vector<std::string>{"10", "2", "a"}));
  // Bools read from JSON are text too.
  EXPECT_EQ(LabelMap::from_examples(examples_with({"true", "false"}), "t").labels(),
            (std::vector<std::string>{"false", "true"}));
}

TEST(LabelMap, SingleClassIsAnError) {
  try {
    LabelMap::from_examples(examples_with({"spam", "spam", "spam"}), "data/train.jsonl");
    FAIL() << "no error";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), "data/train.jsonl: the labels have a single class 'spam'");
    EXPECT_NE(e.hint().find("at least two"), std::string::npos) << e.hint();
  }
  EXPECT_EQ(error_of([] {
              LabelMap::from_examples(examples_with({"pos", ""}), "t.csv");
            }),
            "t.csv:3: the example has no label");
}

TEST(LabelMap, UnknownLabelNamesFileLineAndTheKnownLabels) {
  const LabelMap m = LabelMap::from_examples(examples_with({"pos", "neg"}), "train.tsv");
  EXPECT_EQ(m.id("maybe"), -1);
  const auto valid = examples_with({"neg", "pos", "maybe"});
  try {
    m.ids_of(valid, "valid.tsv");
    FAIL() << "no error";
  } catch (const BadInput& e) {
    EXPECT_EQ(std::string(e.what()), "valid.tsv:4: unknown label 'maybe' (the training labels are: neg, pos)");
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(LabelMap, Id2LabelJsonRoundTrip) {
  // Twelve classes: the JSON object orders its keys "0", "1", "10", "11", "2", ...; ids must not.
  std::vector<std::string> labels;
  for (int i = 0; i < 12; ++i) labels.push_back("class_" + std::string(1, char('a' + i)));
  const LabelMap m = LabelMap::from_labels(labels, "test");
  nlohmann::json config = {{"architectures", {"BertForSequenceClassification"}},
                           {"id2label", m.id2label_json()},
                           {"label2id", m.label2id_json()}};
  const nlohmann::json reread = nlohmann::json::parse(config.dump(2));
  EXPECT_EQ(reread["id2label"]["10"], "class_k");
  EXPECT_EQ(reread["label2id"]["class_c"], 2);
  const LabelMap back = LabelMap::from_config(reread, "config.json");
  EXPECT_EQ(back.labels(), labels);
  for (size_t i = 0; i < labels.size(); ++i) EXPECT_EQ(back.id(labels[i]), int64_t(i));
}

TEST(LabelMap, BadConfigs) {
  auto err = [](const std::string& json) {
    return error_of([&] { LabelMap::from_config(nlohmann::json::parse(json), "m/config.json"); });
  };
  EXPECT_EQ(err(R"({"hidden_size": 8})"), "m/config.json: field \"id2label\" is missing");
  EXPECT_EQ(err(R"({"id2label": {"0": "a", "2": "b"}})"),
            "m/config.json: field \"id2label.2\" is keyed \"2\", which is not an id 0..1");
  EXPECT_EQ(err(R"({"id2label": {"0": "a", "01": "b"}})"),
            "m/config.json: field \"id2label.01\" is keyed \"01\", which is not an id 0..1");
  EXPECT_EQ(err(R"({"id2label": {"0": "a", "1": 7}})"),
            "m/config.json: field \"id2label.1\" is an integer, expected a string");
  EXPECT_EQ(err(R"({"id2label": {"0": "a", "1": "a"}})"), "m/config.json: the label 'a' has two ids");
  EXPECT_EQ(err(R"({"id2label": {}})"), "m/config.json: no labels");
  EXPECT_EQ(error_of([] { LabelMap::from_labels({"x", ""}, "labels"); }), "labels: the label of id 1 is empty");
}

}  // namespace
}  // namespace bertpt::classify
