// Every metric bertpt reports equals its reference library on the same predictions: accuracy,
// precision/recall/F1 (macro and binary) and Matthews correlation against scikit-learn, Pearson and
// Spearman against scipy, entity-level precision/recall/F1 against seqeval (tests/peer/metrics_peer.py,
// run with the peer's .venv interpreter; requirements/hf-peer.txt pins the three).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "classify/entity_metrics.h"
#include "classify/metrics.h"
#include "classify/regression_metrics.h"
#include "common/test_util.h"
#include "tokenizer/peer.h"

namespace bertpt::classify {
namespace {

using testing::shell_quote;

struct Cases {
  nlohmann::json json = {{"classification", nlohmann::json::array()},
                         {"regression", nlohmann::json::array()},
                         {"entities", nlohmann::json::array()}};
};

// Random predictions of every kind, edge cases included (an absent class, a constant prediction, ties,
// I- tags without a B-, type changes inside a chunk, IOBES tags).
Cases make_cases() {
  Cases c;
  std::mt19937_64 rng(20261205);
  for (int classes : {2, 2, 3, 5}) {
    for (int n : {7, 300}) {
      std::vector<int> gold(static_cast<size_t>(n)), pred(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        gold[size_t(i)] = int(rng() % uint64_t(classes));
        pred[size_t(i)] = rng() % 3 == 0 ? gold[size_t(i)] : int(rng() % uint64_t(classes == 5 ? 4 : classes));
      }
      c.json["classification"].push_back({{"gold", gold}, {"predicted", pred}, {"classes", classes}});
    }
  }
  c.json["classification"].push_back({{"gold", {0, 1, 1, 0}}, {"predicted", {0, 0, 0, 0}}, {"classes", 2}});
  for (int n : {5, 200}) {
    std::vector<double> gold, pred;
    std::normal_distribution<double> noise(0, 1);
    for (int i = 0; i < n; ++i) {
      gold.push_back(double(rng() % 26) / 5.0);  // STS-B-like scores 0..5 with ties
      pred.push_back(gold.back() + noise(rng));
    }
    c.json["regression"].push_back({{"gold", gold}, {"predicted", pred}});
  }
  c.json["regression"].push_back({{"gold", {1.0, 2.0, 3.0}}, {"predicted", {2.0, 2.0, 2.0}}});  // constant
  const std::vector<std::string> tags = {"O",     "O",     "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG",
                                         "B-ORG", "E-PER", "S-LOC", "I-PER", "B",     "I"};
  for (int sentences : {3, 60}) {
    nlohmann::json gold = nlohmann::json::array(), pred = nlohmann::json::array();
    for (int s = 0; s < sentences; ++s) {
      std::vector<std::string> g, p;
      const int len = 1 + int(rng() % 14);
      for (int t = 0; t < len; ++t) {
        g.push_back(tags[rng() % (s % 3 == 0 ? tags.size() : 8)]);
        p.push_back(rng() % 2 ? g.back() : tags[rng() % 8]);
      }
      gold.push_back(g), pred.push_back(p);
    }
    c.json["entities"].push_back({{"gold", gold}, {"predicted", pred}});
  }
  return c;
}

void expect_close(const nlohmann::json& want, double got, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << ": the reference has no value, bertpt " << got;
    return;
  }
  EXPECT_NEAR(got, want.get<double>(), 1e-12) << what;
}

TEST(MetricsPeer, EveryMetricEqualsItsReferenceLibrary) {
  BERTPT_REQUIRE_PEER();
  testing::TempDir dir;
  const Cases cases = make_cases();
  testing::write_file(dir.file("cases.json"), cases.json.dump());
  const nlohmann::json ref = nlohmann::json::parse(
      testing::run_peer("metrics_peer.py " + shell_quote(dir.file("cases.json"))));

  for (size_t i = 0; i < cases.json["classification"].size(); ++i) {
    const nlohmann::json& c = cases.json["classification"][i];
    const nlohmann::json& r = ref["classification"][i];
    const int classes = c["classes"];
    ConfusionMatrix cm(static_cast<size_t>(classes));
    for (size_t k = 0; k < c["gold"].size(); ++k) cm.add(c["gold"][k], c["predicted"][k]);
    std::vector<std::string> labels;
    for (int k = 0; k < classes; ++k) labels.push_back(std::to_string(k));
    const ClassificationMetrics m = cm.metrics(labels);
    const std::string what = "classification case " + std::to_string(i);
    expect_close(r["accuracy"], m.accuracy, what + " accuracy");
    expect_close(r["macro_f1"], m.macro_f1, what + " macro F1");
    expect_close(r["macro_precision"], m.macro_precision, what + " macro precision");
    expect_close(r["macro_recall"], m.macro_recall, what + " macro recall");
    expect_close(r["mcc"], m.mcc, what + " MCC");
    for (int k = 0; k < classes; ++k) expect_close(r["per_class_f1"][size_t(k)], m.per_class[size_t(k)].f1, what);
    if (classes == 2) expect_close(r["binary_f1"], m.binary_f1, what + " binary F1");
  }
  for (size_t i = 0; i < cases.json["regression"].size(); ++i) {
    const nlohmann::json& c = cases.json["regression"][i];
    const RegressionMetrics m = regression_metrics(c["gold"], c["predicted"]);
    const std::string what = "regression case " + std::to_string(i);
    expect_close(ref["regression"][i]["pearson"], m.pearson, what + " Pearson");
    expect_close(ref["regression"][i]["spearman"], m.spearman, what + " Spearman");
    expect_close(ref["regression"][i]["mse"], m.mse, what + " MSE");
  }
  for (size_t i = 0; i < cases.json["entities"].size(); ++i) {
    const nlohmann::json& c = cases.json["entities"][i];
    const nlohmann::json& r = ref["entities"][i];
    const auto gold = c["gold"].get<std::vector<std::vector<std::string>>>();
    const EntityMetrics m = entity_metrics(gold, c["predicted"].get<std::vector<std::vector<std::string>>>());
    const std::string what = "entities case " + std::to_string(i);
    expect_close(r["precision"], m.micro.precision, what + " precision");
    expect_close(r["recall"], m.micro.recall, what + " recall");
    expect_close(r["f1"], m.micro.f1, what + " F1");
    expect_close(r["accuracy"], m.token_accuracy, what + " token accuracy");
    for (const EntityScores& t : m.per_type) {
      ASSERT_TRUE(r["per_type"].contains(t.type)) << what << ": seqeval has no type " << t.type;
      expect_close(r["per_type"][t.type]["f1"], t.f1, what + " F1 of " + t.type);
      EXPECT_EQ(r["per_type"][t.type]["support"], t.support) << what << " support of " << t.type;
    }
    for (size_t s = 0; s < gold.size(); ++s) {  // the entities themselves, sentence by sentence
      nlohmann::json mine = nlohmann::json::array();
      for (const Entity& e : tag_entities(gold[s])) mine.push_back({e.type, e.first, e.last});
      EXPECT_EQ(mine, r["entities"][s]) << what << " sentence " << s;
    }
  }
}

}  // namespace
}  // namespace bertpt::classify
