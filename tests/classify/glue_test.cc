// `bertpt glue` end to end on the GLUE-format data in the repository (tests/fixtures/corpora): RTE and
// WNLI (GLUE's TSVs), CoLA and SST-2 (two-column copies without a header), STS-B and MRPC (GLUE's
// own samples of transformers' tests). A randomly initialised bert-tiny, one short epoch each: the
// runner finds the tasks, reads each format, fine-tunes the right head, and its table agrees with
// every task's own results.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/test_util.h"

namespace bertpt::testing {
namespace {

namespace fs = std::filesystem;

class GlueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string rte = corpora() + "/glue_rte_wnli_resplit/RTE/train.tsv";
    CommandResult t = run_bertpt("tokenizer train -i " + shell_quote(rte) + " --vocab-size 1500 --out " +
                                 shell_quote(dir.file("tok")) + " --quiet");
    ASSERT_EQ(t.exit_code, 0) << t.err;
  }
  static std::string corpora() { return shared_data_dir(); }
  std::string glue(const std::string& extra) {
    return "glue --model bert-tiny --tokenizer " + shell_quote(dir.file("tok")) + " --data " +
           shell_quote(corpora() + "/glue_rte_wnli_resplit") + " --data " +
           shell_quote(corpora() + "/nlpdatasets_sentence_cls") + " --data " +
           shell_quote(corpora() + "/glue_samples") + " --output-dir " + shell_quote(dir.file("out")) +
           " --epochs 1 --max-seq-len 32 --learning-rate 1e-4 --precision fp32 --threads 1 " + extra;
  }
  TempDir dir;
};

TEST_F(GlueTest, FineTunesEveryTaskFoundAndTabulatesTheirDevScores) {
  CommandResult r = run_bertpt(glue("--tasks CoLA,MRPC,STS-B,RTE --override RTE.epochs=2 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json table = nlohmann::json::parse(r.out);
  EXPECT_EQ(table, nlohmann::json::parse(read_file(dir.file("out/glue_results.json"))));
  ASSERT_EQ(table["tasks"].size(), 4u) << table.dump(2);
  const std::vector<std::pair<std::string, std::vector<std::string>>> want = {
      {"CoLA", {"mcc"}}, {"MRPC", {"f1", "accuracy"}}, {"STS-B", {"pearson", "spearman"}}, {"RTE", {"accuracy"}}};
  double sum = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const nlohmann::json& row = table["tasks"][i];
    const auto& [task, metrics] = want[i];
    EXPECT_EQ(row["task"], task);
    const nlohmann::json results = nlohmann::json::parse(read_file(dir.file("out/" + task + "/results.json")));
    double mean = 0;
    for (const std::string& m : metrics) {
      const std::string key = "test_" + std::string(m == "f1" ? "binary_f1" : m);  // dev is the run's --test
      ASSERT_TRUE(results.contains(key)) << task << ": " << key;
      if (results[key].is_null()) continue;  // a correlation of constant predictions
      EXPECT_DOUBLE_EQ(row["metrics"][m].get<double>(), results[key].get<double>()) << task << " " << m;
      mean += results[key].get<double>() / double(metrics.size());
    }
    if (!row["score"].is_null()) {
      EXPECT_NEAR(row["score"].get<double>(), mean, 1e-12) << task;
    }
    sum += row["score"].is_null() ? 0 : row["score"].get<double>();
    EXPECT_EQ(results["options"]["valid"], "");  // the last epoch, as run_glue.py reports it
  }
  if (!table["average"].is_null()) {
    EXPECT_NEAR(table["average"].get<double>(), sum / 4, 1e-12);
  }
  // Each task's dev file is the run's --test split, and named dev: in the messages and the model cards.
  EXPECT_NE(r.err.find("glue: data: 9 train, 9 dev examples; regression"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" test examples"), std::string::npos) << r.err;
  const std::string card = read_file(dir.file("out/STS-B/best/README.md"));
  EXPECT_NE(card.find("dev examples"), std::string::npos) << card;
  EXPECT_EQ(card.find("test examples"), std::string::npos) << card;
  // Each task's head: STS-B a regression, CoLA read from its two columns without a header.
  const nlohmann::json stsb = nlohmann::json::parse(read_file(dir.file("out/STS-B/best/config.json")));
  EXPECT_EQ(stsb["problem_type"], "regression");
  const nlohmann::json cola = nlohmann::json::parse(read_file(dir.file("out/CoLA/results.json")));
  EXPECT_EQ(cola["labels"], nlohmann::json({"0", "1"}));
  EXPECT_EQ(cola["train_examples"], 800);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir.file("out/RTE/results.json")))["epochs"].size(), 2u);  // override
  EXPECT_EQ(nlohmann::json::parse(read_file(dir.file("out/MRPC/results.json")))["epochs"].size(), 1u);
}

TEST_F(GlueTest, AMissingTaskOrFolderIsOneLine) {
  CommandResult r = run_bertpt(glue("--tasks QQP"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--tasks QQP: no such task folder"), std::string::npos) << r.err;
  r = run_bertpt("glue --model bert-tiny --tokenizer " + shell_quote(dir.file("tok")) + " --data " +
                 shell_quote(dir.path()) + " --output-dir " + shell_quote(dir.file("o2")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no GLUE task folder in the --data folders"), std::string::npos) << r.err;
  r = run_bertpt(glue("--tasks RTE --override RTE-epochs"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expected TASK.OPTION=VALUE"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bertpt::testing
