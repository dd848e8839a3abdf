// `bertpt finetune` and `bertpt predict` end to end on a tiny task a model must learn perfectly:
// the label is which animal a sentence is about. Runs on CPU in fp32 in seconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include <ATen/ATen.h>

#include "classify/finetune.h"
#include "classify/label_map.h"
#include "classify/problem_type.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "mlm/pretrain.h"
#include "mlm/train_test_util.h"
#include "model/bert.h"
#include "model/checkpoint.h"
#include "tokenizer/hf_files.h"

namespace bertpt::classify {
namespace {

namespace fs = std::filesystem;
using testing::run_bertpt;
using testing::shell_quote;
using testing::TempDir;

// n JSONL examples: "cat" sentences and "dog" sentences in alternation, each from a few templates.
std::string animal_jsonl(int n, int offset = 0) {
  const char* cat[] = {"the cat sat on the mat.", "a cat sat home.", "the mat and the cat.",
                       "cat on the mat, quickly."};
  const char* dog[] = {"the dog ran far away.", "a dog ran home.", "the dog ran quickly.", "far away ran the dog."};
  std::string out;
  for (int i = 0; i < n; ++i) {
    const int k = i + offset;
    const bool is_cat = k % 2 == 0;
    nlohmann::json j = {{"text", is_cat ? cat[(k / 2) % 4] : dog[(k / 2) % 4]}, {"label", is_cat ? "cat" : "dog"}};
    out += j.dump() + "\n";
  }
  return out;
}

class FinetuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tokenizer = testing::write_test_tokenizer(dir);
    vocab = int64_t(tokenizer::load_tokenizer(tokenizer).vocab_size());
    model = testing::write_tiny_config(dir, vocab, 0.0);
    testing::write_file(dir.file("train.jsonl"), animal_jsonl(64));
    testing::write_file(dir.file("valid.jsonl"), animal_jsonl(16, 1));
    testing::write_file(dir.file("test.jsonl"), animal_jsonl(16, 2));
  }
  FinetuneOptions options(const std::string& out) {
    FinetuneOptions o;
    o.model = model;
    o.tokenizer = tokenizer;
    o.train = dir.file("train.jsonl");
    o.valid = dir.file("valid.jsonl");
    o.test = dir.file("test.jsonl");
    o.output_dir = dir.file(out);
    o.epochs = 10;
    o.learning_rate = 3e-3;
    o.per_device_batch_size = 8;
    o.max_seq_len = 32;
    o.precision = "fp32";
    o.threads = 1;
    o.seed = 3;
    return o;
  }
  std::string cli_args(const std::string& out) {
    return "finetune --model " + shell_quote(model) + " --tokenizer " + shell_quote(tokenizer) + " --train " +
           shell_quote(dir.file("train.jsonl")) + " --valid " + shell_quote(dir.file("valid.jsonl")) +
           " --output-dir " + shell_quote(dir.file(out)) +
           " --epochs 2 --learning-rate 1e-3 --per-device-batch-size 8 --max-seq-len 32"
           " --precision fp32 --threads 1 --quiet";
  }
  TempDir dir;
  std::string tokenizer, model;
  int64_t vocab = 0;
};

TEST_F(FinetuneTest, LearnsASeparableTaskAndWritesAHuggingFaceClassifier) {
  FinetuneResult r = run_finetune(options("run"));
  const auto& rep = r.report;
  EXPECT_GE(rep["valid_accuracy"].get<double>(), 0.999) << rep.dump(2);
  EXPECT_GE(rep["test_accuracy"].get<double>(), 0.999) << rep.dump(2);
  EXPECT_DOUBLE_EQ(rep["test_majority_accuracy"].get<double>(), 0.5);
  EXPECT_EQ(rep["epochs"].size(), 10u);
  EXPECT_EQ(rep["steps"].get<int64_t>(), 10 * 8);
  // The epochs' loss goes down.
  EXPECT_LT(rep["epochs"].back()["train_loss"].get<double>(), rep["epochs"].front()["train_loss"].get<double>());

  // best/ is a transformers BertForSequenceClassification directory with its label map and tokenizer.
  auto config = nlohmann::json::parse(read_file(r.best_dir + "/config.json"));
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertForSequenceClassification"}));
  EXPECT_EQ(config["id2label"], nlohmann::json({{"0", "cat"}, {"1", "dog"}}));
  EXPECT_EQ(config["label2id"], nlohmann::json({{"cat", 0}, {"dog", 1}}));
  EXPECT_TRUE(fs::exists(r.best_dir + "/tokenizer.json"));
  classify::LabelMap labels = classify::LabelMap::from_config(config, "config.json");
  EXPECT_EQ(labels.labels(), (std::vector<std::string>{"cat", "dog"}));
  model::LoadReport report;
  model::load_sequence_classifier(r.best_dir, 2, nullptr, &report);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.unexpected.empty());
  // Its model card, with the test results of results.json.
  const std::string card = read_file(r.best_dir + "/README.md");
  EXPECT_EQ(card.rfind("---\nlibrary_name: transformers\npipeline_tag: text-classification\n", 0), 0u) << card;
  EXPECT_NE(card.find("| test accuracy / macro-F1 | " + std::to_string(rep["test_accuracy"].get<double>())),
            std::string::npos)
      << card;

  // metrics.jsonl: step records and one evaluation per epoch.
  std::istringstream lines(read_file(dir.file("run/metrics.jsonl")));
  std::string line;
  int evals = 0;
  while (std::getline(lines, line)) evals += nlohmann::json::parse(line).contains("valid_accuracy") ? 1 : 0;
  EXPECT_EQ(evals, 10);
}

TEST_F(FinetuneTest, StartsFromAPreTrainedCheckpointAndItsTokenizer) {
  // A pre-trained MLM checkpoint (config, weights, trainer state and tokenizer in one directory).
  const std::string data = testing::make_dataset(dir, testing::structured_documents(60));
  mlm::PretrainOptions t = testing::tiny_options(data, model, dir.file("pretrain"));
  t.max_steps = 2;
  const std::string checkpoint = mlm::run_pretraining(t).last_checkpoint;
  ASSERT_FALSE(checkpoint.empty());
  FinetuneOptions o = options("from-checkpoint");
  o.model = checkpoint;
  o.tokenizer.clear();  // the checkpoint's own
  o.epochs = 1;
  FinetuneResult r = run_finetune(o);
  EXPECT_EQ(r.report["tokenizer"], checkpoint);
  // best/ is a classifier with the tokenizer, and nothing of the MLM checkpoint's training state.
  auto config = nlohmann::json::parse(read_file(r.best_dir + "/config.json"));
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertForSequenceClassification"}));
  EXPECT_TRUE(fs::exists(r.best_dir + "/vocab.txt"));
  EXPECT_FALSE(fs::exists(r.best_dir + "/optimizer.safetensors"));
  EXPECT_FALSE(fs::exists(r.best_dir + "/trainer_state.json"));
  model::LoadReport report;
  model::load_sequence_classifier(r.best_dir, 2, nullptr, &report);
  EXPECT_TRUE(report.missing.empty());
  // The encoder came from the checkpoint: a fresh init from the same seed would not match its
  // position embeddings (fine-tuning moves them only a little in one epoch of 8 steps).
  auto pre = model::load_pretrained(checkpoint);
  auto ft = model::load_sequence_classifier(r.best_dir, 2);
  const at::Tensor a =
      std::dynamic_pointer_cast<model::BertForMaskedLMImpl>(pre)->bert->embeddings->position_embeddings;
  const at::Tensor b =
      std::dynamic_pointer_cast<model::BertForSequenceClassificationImpl>(ft)->bert->embeddings->position_embeddings;
  EXPECT_LT((a - b).abs().max().item<double>(), 0.05);
}

TEST_F(FinetuneTest, AResumedRunRestoresItsHeadWithoutCallingItNew) {
  const std::string data = testing::make_dataset(dir, testing::structured_documents(60));
  mlm::PretrainOptions t = testing::tiny_options(data, model, dir.file("pretrain"));
  t.max_steps = 2;
  const std::string checkpoint = mlm::run_pretraining(t).last_checkpoint;
  ASSERT_FALSE(checkpoint.empty());
  FinetuneOptions o = options("head");
  o.model = checkpoint;
  o.tokenizer.clear();
  o.epochs = 1;
  std::vector<std::string> messages;
  auto said = [&](const std::string& what) {
    return std::any_of(messages.begin(), messages.end(),
                       [&](const std::string& m) { return m.find(what) != std::string::npos; });
  };
  FinetuneHooks hooks;
  hooks.on_message = [&](const std::string& m) { messages.push_back(m); };
  int64_t steps = 0;
  hooks.stop_requested = [&] { return ++steps == 3; };
  ASSERT_TRUE(run_finetune(o, hooks).interrupted);
  EXPECT_TRUE(said("initialised a new classification head")) << ::testing::PrintToString(messages);
  // Resumed: the head is the checkpoint's, trained for 3 steps, not a new one.
  messages.clear();
  hooks.stop_requested = [] { return false; };
  o.resume = "auto";
  ASSERT_FALSE(run_finetune(o, hooks).interrupted);
  EXPECT_TRUE(said("resuming ")) << ::testing::PrintToString(messages);
  EXPECT_FALSE(said("classification head")) << ::testing::PrintToString(messages);
}

TEST_F(FinetuneTest, PredictReproducesTheReportAndWritesProbabilities) {
  FinetuneResult r = run_finetune(options("run"));
  auto p = run_bertpt("predict --model " + shell_quote(r.best_dir) + " --input " + shell_quote(dir.file("test.jsonl")) +
                      " --output " + shell_quote(dir.file("pred.jsonl")) + " --threads 1 --json --quiet");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto summary = nlohmann::json::parse(p.out);
  EXPECT_EQ(summary["examples"].get<int64_t>(), 16);
  EXPECT_DOUBLE_EQ(summary["metrics"]["accuracy"].get<double>(), r.report["test_accuracy"].get<double>());
  std::istringstream lines(read_file(dir.file("pred.jsonl")));
  std::istringstream gold(animal_jsonl(16, 2));
  std::string line, g;
  int n = 0;
  while (std::getline(lines, line) && std::getline(gold, g)) {
    auto j = nlohmann::json::parse(line);
    const double pc = j["probabilities"]["cat"].get<double>(), pd = j["probabilities"]["dog"].get<double>();
    EXPECT_NEAR(pc + pd, 1.0, 1e-5);
    EXPECT_EQ(j["label"], pc > pd ? "cat" : "dog");
    EXPECT_DOUBLE_EQ(j["score"].get<double>(), std::max(pc, pd));
    EXPECT_EQ(j["label"], nlohmann::json::parse(g)["label"]);
    ++n;
  }
  EXPECT_EQ(n, 16);
}

// The animal task as regression: a cat sentence scores 1.5, a dog sentence 4.25 (labels as JSON numbers).
std::string animal_scores_jsonl(int n, int offset) {
  std::string out;
  std::istringstream in(animal_jsonl(n, offset));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    j["label"] = j["label"] == "cat" ? 1.5 : 4.25;
    out += j.dump() + "\n";
  }
  return out;
}

TEST_F(FinetuneTest, RegressionLearnsTheScoresAndPredictsThem) {
  testing::write_file(dir.file("train.jsonl"), animal_scores_jsonl(64, 0));
  testing::write_file(dir.file("valid.jsonl"), animal_scores_jsonl(16, 1));
  testing::write_file(dir.file("test.jsonl"), animal_scores_jsonl(16, 2));
  FinetuneOptions o = options("run");  // --problem-type auto: the labels have decimals
  o.epochs = 30;                       // the scale takes longer to fit than the order
  FinetuneResult r = run_finetune(o);
  const auto& rep = r.report;
  EXPECT_EQ(rep["problem_type"], "regression");
  EXPECT_EQ(rep["metric_for_best"], "pearson");
  EXPECT_GT(rep["test_pearson"].get<double>(), 0.99) << rep.dump(2);
  EXPECT_LT(rep["test_mse"].get<double>(), 0.1) << rep.dump(2);
  EXPECT_FALSE(rep.contains("test_accuracy"));
  EXPECT_LT(rep["epochs"].back()["train_loss"].get<double>(), rep["epochs"].front()["train_loss"].get<double>());
  // best/ is transformers' regression head: one output, problem_type "regression", LABEL_0.
  auto config = nlohmann::json::parse(read_file(r.best_dir + "/config.json"));
  EXPECT_EQ(config["problem_type"], "regression");
  EXPECT_EQ(config["id2label"], nlohmann::json({{"0", "LABEL_0"}}));
  EXPECT_EQ(problem_type_of_config(config), ProblemType::Regression);

  auto p = run_bertpt("predict --model " + shell_quote(r.best_dir) + " --input " + shell_quote(dir.file("test.jsonl")) +
                      " --output " + shell_quote(dir.file("pred.jsonl")) + " --threads 1 --json --quiet");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NEAR(nlohmann::json::parse(p.out)["metrics"]["mse"].get<double>(), rep["test_mse"].get<double>(), 1e-5);
  std::istringstream lines(read_file(dir.file("pred.jsonl"))), gold(animal_scores_jsonl(16, 2));
  std::string line, g;
  int n = 0;
  while (std::getline(lines, line) && std::getline(gold, g)) {
    EXPECT_NEAR(nlohmann::json::parse(line)["score"].get<double>(), nlohmann::json::parse(g)["label"].get<double>(),
                0.5)
        << line;
    ++n;
  }
  EXPECT_EQ(n, 16);

  // A classification metric does not pick a regression model; a non-numeric label is named.
  auto bad = run_bertpt(cli_args("bad") + " --metric-for-best accuracy");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--metric-for-best accuracy is a classification metric, but the task is regression"),
            std::string::npos)
      << bad.err;
  testing::write_file(dir.file("valid.jsonl"), animal_jsonl(4, 0));
  bad = run_bertpt(cli_args("bad2"));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("valid.jsonl:1: the label 'cat' is not a number, but the task is regression"),
            std::string::npos)
      << bad.err;
}

// STS-B (GLUE's samples of transformers' tests: 9 train, 9 dev pairs scored 0 to 5) on a randomly
// initialised bert-tiny with a tokenizer trained on it, in bf16 (the default precision). In bf16 the
// predictions of a near-constant regression head round to one value (Pearson and Spearman NaN):
// evaluation runs in fp32, as predict does.
class StsbRegressionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = run_bertpt("tokenizer train -i " + shell_quote(stsb + "/train.tsv") + " -i " +
                        shell_quote(stsb + "/dev.tsv") + " --vocab-size 300 --out " + shell_quote(dir.file("tok")) +
                        " --quiet");
    ASSERT_EQ(t.exit_code, 0) << t.err;
  }
  FinetuneOptions options(const std::string& out) const {
    FinetuneOptions o;
    o.model = "bert-tiny";
    o.tokenizer = dir.file("tok");
    o.train = stsb + "/train.tsv";
    o.valid = stsb + "/dev.tsv";
    o.data.text_field = "sentence1";
    o.data.text_pair_field = "sentence2";
    o.data.label_field = "score";
    o.output_dir = dir.file(out);
    o.epochs = 6;
    o.learning_rate = 1e-3;
    o.per_device_batch_size = 4;
    o.max_seq_len = 32;
    o.threads = 1;
    return o;  // precision bf16, problem type auto: regression
  }
  const std::string stsb = testing::source_dir() + "/tests/fixtures/corpora/glue_samples/STS-B";
  TempDir dir;
};

TEST_F(StsbRegressionTest, Bf16RunsAreEvaluatedInFp32) {
  const FinetuneOptions o = options("run");
  ASSERT_EQ(o.precision, "bf16");
  const FinetuneResult r = run_finetune(o);
  EXPECT_EQ(r.report["problem_type"], "regression");
  ASSERT_EQ(r.report["epochs"].size(), 6u);
  for (const auto& e : r.report["epochs"]) {
    EXPECT_TRUE(e["valid_pearson"].is_number()) << e.dump();
    EXPECT_TRUE(e["valid_spearman"].is_number()) << e.dump();
  }
  EXPECT_TRUE(r.report["valid_pearson"].is_number()) << r.report.dump(2);
  // predict in fp32 (its default) scores best/ as the run did.
  auto p = run_bertpt("predict --model " + shell_quote(r.best_dir) + " --input " + shell_quote(o.valid) +
                      " --text-field sentence1 --text-pair-field sentence2 --label-field score --output " +
                      shell_quote(dir.file("pred.jsonl")) + " --threads 1 --json --quiet");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NEAR(nlohmann::json::parse(p.out)["metrics"]["mse"].get<double>(), r.report["valid_mse"].get<double>(), 1e-5);
}

TEST_F(StsbRegressionTest, AnEpochWhoseMetricIsNanIsNeverTheBest) {
  // A valid split of one pair: its Pearson is undefined (NaN) in every epoch. No epoch is chosen for
  // it; best/ is the last epoch's model, as without --valid, and the run says why.
  testing::write_file(dir.file("one.tsv"), "sentence1\tsentence2\tscore\nA man is dancing.\tA man dances.\t4.5\n");
  FinetuneOptions o = options("nan");
  o.valid = dir.file("one.tsv");
  o.epochs = 3;
  std::vector<std::string> messages;
  FinetuneHooks hooks;
  hooks.on_message = [&](const std::string& m) { messages.push_back(m); };
  const FinetuneResult r = run_finetune(o, hooks);
  for (const auto& e : r.report["epochs"]) {
    EXPECT_TRUE(e["valid_pearson"].is_null()) << e.dump();
    EXPECT_FALSE(e["best"].get<bool>()) << e.dump();
  }
  EXPECT_EQ(r.report["best_epoch"], 3) << r.report.dump(2);
  const std::string said = ::testing::PrintToString(messages);
  EXPECT_NE(said.find("no epoch has a finite valid pearson"), std::string::npos) << said;
  EXPECT_TRUE(fs::exists(r.best_dir + "/model.safetensors"));
}

// n CoNLL sentences (word, POS-like column, tag) from a few templates: animals are B-ANIMAL, places
// B-PLACE (I-PLACE), "quickly" has two sub-tokens (quick ##ly).
std::string animal_conll(int n, int offset = 0) {
  const std::vector<std::vector<std::pair<const char*, const char*>>> templates = {
      {{"the", "O"}, {"cat", "B-ANIMAL"}, {"sat", "O"}, {"on", "O"}, {"the", "O"}, {"mat", "B-PLACE"}},
      {{"a", "O"}, {"dog", "B-ANIMAL"}, {"ran", "O"}, {"far", "B-PLACE"}, {"away", "I-PLACE"}, {"quickly", "O"}},
      {{"the", "O"}, {"dog", "B-ANIMAL"}, {"ran", "O"}, {"home", "B-PLACE"}},
      {{"cat", "B-ANIMAL"}, {"and", "O"}, {"dog", "B-ANIMAL"}, {"sat", "O"}, {"quickly", "O"}}};
  std::string out = "-DOCSTART- X O\n\n";
  for (int i = 0; i < n; ++i) {
    for (const auto& [word, tag] : templates[size_t(i + offset) % templates.size()]) {
      out += std::string(word) + "\tX\t" + tag + "\n";
    }
    out += "\n";
  }
  return out;
}

TEST_F(FinetuneTest, TokenClassificationTagsEntitiesAndPredictReproducesTheReport) {
  testing::write_file(dir.file("train.conll"), animal_conll(48));
  testing::write_file(dir.file("valid.conll"), animal_conll(8, 1));
  testing::write_file(dir.file("test.conll"), animal_conll(8, 2));
  FinetuneOptions o = options("ner");
  o.task = "token-classification";
  o.train = dir.file("train.conll");
  o.valid = dir.file("valid.conll");
  o.test = dir.file("test.conll");
  FinetuneResult r = run_finetune(o);
  const auto& rep = r.report;
  EXPECT_EQ(rep["task"], "token-classification");
  EXPECT_EQ(rep["metric_for_best"], "f1");
  EXPECT_EQ(rep["labels"], nlohmann::json({"B-ANIMAL", "B-PLACE", "I-PLACE", "O"}));
  EXPECT_GE(rep["test_f1"].get<double>(), 0.999) << rep.dump(2);
  EXPECT_GE(rep["test_accuracy"].get<double>(), 0.999) << rep.dump(2);
  EXPECT_EQ(rep["test"]["per_type"]["PLACE"]["support"], 6) << rep.dump(2);  // home, mat, far away: twice
  EXPECT_LT(rep["epochs"].back()["train_loss"].get<double>(), rep["epochs"].front()["train_loss"].get<double>());
  // best/ is transformers' BertForTokenClassification with the tags as labels.
  auto config = nlohmann::json::parse(read_file(r.best_dir + "/config.json"));
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertForTokenClassification"}));
  EXPECT_EQ(config["id2label"]["1"], "B-PLACE");
  model::LoadReport report;
  model::load_token_classifier(r.best_dir, 4, nullptr, &report);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.unexpected.empty());
  EXPECT_NE(read_file(r.best_dir + "/README.md").find("pipeline_tag: token-classification"), std::string::npos);

  // predict: a line per sentence, the same metrics as the report's test split, the entities of the tags.
  auto p = run_bertpt("predict --model " + shell_quote(r.best_dir) + " --input " + shell_quote(o.test) + " --output " +
                      shell_quote(dir.file("pred.jsonl")) + " --threads 1 --json --quiet");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(p.out)["metrics"]["f1"].get<double>(), rep["test_f1"].get<double>());
  std::istringstream lines(read_file(dir.file("pred.jsonl")));
  std::string line;
  std::getline(lines, line);  // test.conll's sentences: the third template, the fourth, the first, ...
  const nlohmann::json first = nlohmann::json::parse(line);
  EXPECT_EQ(first["labels"], nlohmann::json({"O", "B-ANIMAL", "O", "B-PLACE"})) << line;
  EXPECT_EQ(first["entities"][1]["word"], "home") << line;
  EXPECT_EQ(first["entities"][1]["start"], 3) << line;
  EXPECT_EQ(first["entities"][1]["end"], 4) << line;
  for (int i = 0; i < 3; ++i) std::getline(lines, line);  // the fourth: the second template
  EXPECT_EQ(nlohmann::json::parse(line)["entities"][1]["word"], "far away") << line;
}

TEST_F(FinetuneTest, TokenClassificationTwoRanksEqualOneRankAndBadTagsAreNamed) {
  testing::write_file(dir.file("train.conll"), animal_conll(32));
  testing::write_file(dir.file("valid.conll"), animal_conll(6, 1));
  const std::string args = "finetune --task token-classification --model " + shell_quote(model) + " --tokenizer " +
                           shell_quote(tokenizer) + " --train " + shell_quote(dir.file("train.conll")) + " --valid " +
                           shell_quote(dir.file("valid.conll")) +
                           " --epochs 2 --learning-rate 1e-3 --max-seq-len 32 --precision fp32 --threads 1 --quiet";
  // The loss is the mean over the labelled tokens of the whole global batch: ranks and accumulation
  // split the same batches.
  auto one = run_bertpt(args + " --output-dir " + shell_quote(dir.file("one")) + " --per-device-batch-size 8");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto two = run_bertpt(args + " --output-dir " + shell_quote(dir.file("two")) +
                        " --per-device-batch-size 2 --grad-accum 2 --nproc-per-node 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto a = model::load_token_classifier(dir.file("one/best"), 4),
       b = model::load_token_classifier(dir.file("two/best"), 4);
  auto pb = b->named_parameters();
  for (const auto& item : a->named_parameters()) {
    if (item.key().find("attention.self.key.bias") != std::string::npos) continue;  // noise (see below)
    const at::Tensor& t = item.value();
    const double scale = t.abs().max().item<double>() + 1e-12;
    EXPECT_LT((t - pb[item.key()]).abs().max().item<double>() / scale, 1e-4) << item.key();
  }
  const auto r1 = nlohmann::json::parse(read_file(dir.file("one/results.json")));
  const auto r2 = nlohmann::json::parse(read_file(dir.file("two/results.json")));
  EXPECT_NEAR(r1["valid_f1"].get<double>(), r2["valid_f1"].get<double>(), 1e-9);

  // A tag that training never saw, a word without its tag, a metric of another task: one line each.
  testing::write_file(dir.file("bad.conll"), "the\tO\ncat\tB-PET\n\n");
  auto bad = run_bertpt(args + " --output-dir " + shell_quote(dir.file("bad")) + " --test " +
                        shell_quote(dir.file("bad.conll")));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.conll:2: tag 'B-PET' is not in the training data"), std::string::npos) << bad.err;
  testing::write_file(dir.file("bad.conll"), "the O\ncat\n\n");
  bad = run_bertpt(args + " --output-dir " + shell_quote(dir.file("bad")) + " --test " +
                   shell_quote(dir.file("bad.conll")));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.conll:2: 'cat' has no tag"), std::string::npos) << bad.err;
  bad = run_bertpt(args + " --output-dir " + shell_quote(dir.file("bad")) + " --metric-for-best mcc");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--metric-for-best mcc is not a metric of token classification"), std::string::npos)
      << bad.err;
  bad = run_bertpt(args + " --output-dir " + shell_quote(dir.file("bad")) + " --format csv");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--format csv does not fit --task token-classification"), std::string::npos) << bad.err;
}

TEST_F(FinetuneTest, SameSeedSameModelAndTwoRanksEqualOneRank) {
  // 64 examples, global batch 8 either way: 1 rank x 8 or 2 ranks x 4 see the same batches.
  auto one = run_bertpt(cli_args("one") + " --seed 5");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto again = run_bertpt(cli_args("again") + " --seed 5");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto two = run_bertpt(cli_args("two") + " --seed 5 --per-device-batch-size 4 --nproc-per-node 2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto params = [&](const std::string& run) {
    auto m = model::load_sequence_classifier(dir.file(run + "/best"), 2);
    std::map<std::string, at::Tensor> p;
    for (const auto& item : m->named_parameters()) p[item.key()] = item.value().detach().clone();
    return p;
  };
  auto a = params("one"), b = params("again"), c = params("two");
  for (const auto& [name, t] : a) {
    EXPECT_TRUE(at::equal(t, b.at(name))) << name << ": the same seed must give the same model";
    // A key bias adds the same q·b to every score of a softmax row, so its true gradient is 0 and
    // what it receives is rounding noise, which Adam scales up to full-size steps of either sign:
    // its values are noise in any run and cannot be compared across batch splits.
    if (name.find("attention.self.key.bias") != std::string::npos) continue;
    const double scale = t.abs().max().item<double>() + 1e-12;
    EXPECT_LT((t - c.at(name)).abs().max().item<double>() / scale, 1e-4) << name << ": 2 ranks x 4 != 1 rank x 8";
  }
}

TEST_F(FinetuneTest, BadInputsExitOneWithAClearMessage) {
  auto expect_error = [&](const std::string& args, const std::string& needle) {
    auto r = run_bertpt(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
  };
  // A label in valid that train never had.
  testing::write_file(dir.file("bad-valid.jsonl"), animal_jsonl(4) + "{\"text\": \"the cat\", \"label\": \"bird\"}\n");
  expect_error(cli_args("x") + " --valid " + shell_quote(dir.file("bad-valid.jsonl")), "bird");
  // One class only.
  testing::write_file(dir.file("one-class.jsonl"),
                      "{\"text\": \"a\", \"label\": \"cat\"}\n{\"text\": \"b\", \"label\": \"cat\"}\n");
  expect_error(cli_args("x") + " --train " + shell_quote(dir.file("one-class.jsonl")), "cat");
  // Missing field.
  expect_error(cli_args("x") + " --label-field topic", "topic");
  // Empty split.
  testing::write_file(dir.file("empty.jsonl"), "");
  expect_error(cli_args("x") + " --train " + shell_quote(dir.file("empty.jsonl")), "empty.jsonl");
  // A model directory without a tokenizer.
  fs::create_directories(dir.file("no-tok"));
  expect_error("finetune --model " + shell_quote(dir.file("no-tok")) + " --train " +
                   shell_quote(dir.file("train.jsonl")) + " --output-dir " + shell_quote(dir.file("x")),
               "tokenizer");
  // A preset (random init) needs --tokenizer.
  expect_error("finetune --model bert-tiny --train " + shell_quote(dir.file("train.jsonl")) + " --output-dir " +
                   shell_quote(dir.file("x")),
               "--tokenizer");
  // predict on a model that is not a classifier.
  expect_error("predict --model " + shell_quote(dir.file("no-tok")) + " --input " +
                   shell_quote(dir.file("train.jsonl")),
               "model.safetensors");
}

TEST_F(FinetuneTest, NonFiniteStepsAreSkippedThenStop) {
  // The engine's non-finite policy, as in pre-training: a poisoned step is skipped and counted...
  FinetuneOptions o = options("nan");
  o.epochs = 2;
  FinetuneHooks once;
  once.inject_nonfinite = [](int64_t step) { return step == 2; };
  FinetuneResult r = run_finetune(o, once);
  EXPECT_EQ(r.report["skipped_steps"].get<int64_t>(), 1);
  EXPECT_EQ(r.report["steps"].get<int64_t>(), 16);  // 2 epochs x 64 / 8
  for (const auto& e : r.report["epochs"]) EXPECT_TRUE(std::isfinite(e["train_loss"].get<double>())) << e.dump();
  // ... and max_nan_steps of them in a row stop the run with a one-line error and a hint.
  o.output_dir = dir.file("nan2");
  o.max_nan_steps = 3;
  FinetuneHooks always;
  always.inject_nonfinite = [](int64_t step) { return step >= 1; };
  try {
    run_finetune(o, always);
    FAIL() << "no error after 3 non-finite steps";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("not finite for 3 steps in a row (up to step 4)"), std::string::npos)
        << e.what();
    EXPECT_NE(e.hint().find("--learning-rate"), std::string::npos) << e.hint();
  }
  EXPECT_FALSE(fs::exists(dir.file("nan2/results.json"))) << "a failed run must not look complete";
}

TEST_F(FinetuneTest, OutOfMemoryIsOneLineWithTheBatchSizeHint) {
  // A real LibTorch allocation failure inside the forward pass (the CPU allocator refuses 2^50
  // bytes), translated by the engine as for pre-training.
  FinetuneHooks huge;
  huge.during_forward = [](int64_t step) {
    if (step == 1) at::empty({int64_t(1) << 48}, at::kFloat);
  };
  try {
    run_finetune(options("oom"), huge);
    FAIL() << "no error for an impossible allocation";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory at --per-device-batch-size 8 on cpu"), std::string::npos)
        << e.what();
    EXPECT_NE(e.hint().find("--grad-accum"), std::string::npos) << e.hint();
  }
  EXPECT_FALSE(fs::exists(dir.file("oom/results.json")));
}

TEST_F(FinetuneTest, GradientAccumulationEqualsTheWholeBatch) {
  // 8 examples per step either way: 8 x 1 or 4 x 2 accumulated (dropout 0: the same gradients).
  FinetuneOptions whole = options("whole");
  whole.epochs = 2;
  FinetuneOptions accumulated = whole;
  accumulated.output_dir = dir.file("accumulated");
  accumulated.per_device_batch_size = 4;
  accumulated.grad_accum = 2;
  FinetuneResult a = run_finetune(whole), b = run_finetune(accumulated);
  EXPECT_EQ(a.report["global_batch"], b.report["global_batch"]);
  EXPECT_EQ(a.report["steps"], b.report["steps"]);
  auto pa = model::load_sequence_classifier(dir.file("whole/best"), 2)->named_parameters();
  auto pb = model::load_sequence_classifier(dir.file("accumulated/best"), 2)->named_parameters();
  for (const auto& item : pa) {
    if (item.key().find("attention.self.key.bias") != std::string::npos) continue;  // see SameSeedSameModel...
    const at::Tensor& t = item.value();
    const double scale = t.abs().max().item<double>() + 1e-12;
    EXPECT_LT((t - pb[item.key()]).abs().max().item<double>() / scale, 1e-4) << item.key();
  }
}

TEST_F(FinetuneTest, StoppedBySignalsThenResumedEqualsTheUninterruptedRun) {
  // 2 epochs x 8 steps. Stopped after step 5 (mid-epoch) and again after step 8 (the first epoch's
  // last step: that epoch is evaluated first), resumed each time: the same model and report.
  FinetuneOptions o = options("straight");
  o.epochs = 2;
  const FinetuneResult straight = run_finetune(o);
  FinetuneOptions p = o;
  p.output_dir = dir.file("stopped");
  int64_t steps = 0, stop_at = 5;
  FinetuneHooks signals;
  signals.stop_requested = [&] { return ++steps == stop_at; };
  FinetuneResult r = run_finetune(p, signals);
  ASSERT_TRUE(r.interrupted);
  EXPECT_TRUE(fs::exists(r.checkpoint + "/model.safetensors")) << r.checkpoint;
  EXPECT_FALSE(fs::exists(dir.file("stopped/results.json"))) << "an interrupted run must not look complete";
  EXPECT_THROW(run_finetune(p), BadInput) << "a new run over an unfinished one needs --overwrite-output-dir";
  FinetuneOptions other = p;
  other.resume = "auto";
  other.learning_rate *= 2;
  EXPECT_THROW(run_finetune(other), BadInput) << "resuming with other options";
  p.resume = "auto";
  steps = 0;
  stop_at = 3;  // the resumed run's 3rd step is step 8, the last of epoch 1
  r = run_finetune(p, signals);
  ASSERT_TRUE(r.interrupted);
  r = run_finetune(p);
  ASSERT_FALSE(r.interrupted);
  EXPECT_EQ(testing::slurp(dir.file("straight/best/model.safetensors")),
            testing::slurp(dir.file("stopped/best/model.safetensors")));
  auto without_times = [](nlohmann::json epochs) {
    for (auto& e : epochs) e.erase("train_seconds");
    return epochs;
  };
  EXPECT_EQ(without_times(straight.report["epochs"]), without_times(r.report["epochs"]));
  EXPECT_EQ(straight.report["valid"], r.report["valid"]);
  EXPECT_EQ(straight.report["test"], r.report["test"]);
  for (const auto& e : fs::directory_iterator(dir.file("stopped"))) {
    EXPECT_NE(e.path().filename().string().rfind("checkpoint-", 0), 0u) << "left behind: " << e.path();
  }
}

TEST_F(FinetuneTest, SigintSavesACheckpointAndResumeContinuesTheRunItWas) {
  const std::string out = dir.file("sig");
  // A long run (1000 epochs): interrupted once it has logged a step.
  auto r = testing::interrupt_after_first_log(cli_args("sig") + " --epochs 1000 --logging-steps 1",
                                              out + "/metrics.jsonl");
  EXPECT_NE(r.out.find("rc=0"), std::string::npos) << r.out << r.err;
  const auto checkpoints = testing::checkpoints_in(out);
  ASSERT_EQ(checkpoints.size(), 1u) << "no checkpoint after SIGINT";
  EXPECT_TRUE(checkpoints[0].second) << checkpoints[0].first << " has no DONE";
  EXPECT_FALSE(fs::exists(out + "/results.json"));
  // An option that defines the run, given with another value, is refused in one line naming it.
  auto other = run_bertpt(cli_args("sig") + " --epochs 3 --resume auto");
  EXPECT_EQ(other.exit_code, 1) << other.err;
  EXPECT_NE(other.err.find("--epochs 3 differs from the run being resumed, which has 1000"), std::string::npos)
      << other.err;
  // Resumed with nothing but where the run is: its own options (1000 epochs, lr 1e-3, ...), not the defaults.
  const nlohmann::json first = nlohmann::json::parse(testing::slurp(out + "/run_config.json"));
  EXPECT_EQ(first["epochs"], 1000);
  fs::remove(out + "/metrics.jsonl");
  auto again = testing::interrupt_after_first_log(
      "finetune --output-dir " + shell_quote(out) + " --resume auto --logging-steps 1 --quiet", out + "/metrics.jsonl");
  EXPECT_NE(again.out.find("rc=0"), std::string::npos) << again.out << again.err;
  nlohmann::json resumed = nlohmann::json::parse(testing::slurp(out + "/run_config.json"));
  EXPECT_EQ(resumed["resume"], "auto");
  EXPECT_EQ(resumed["threads"], 1);  // the run's: an option that may change on resume keeps its value when not given
  nlohmann::json expected = first;
  for (auto* j : {&resumed, &expected}) j->erase("resume");
  EXPECT_EQ(resumed, expected);
}

TEST_F(FinetuneTest, ResumedWithoutThreadsKeepsTheRunsThreadsAndItsModel) {
  // A --threads 1 run stopped mid-epoch, resumed from the command line with nothing but --resume auto:
  // it goes on with 1 thread, as train does (not all cores), and ends with the uninterrupted run's model.
  FinetuneOptions o = options("straight");
  o.epochs = 2;
  ASSERT_FALSE(run_finetune(o).interrupted);
  FinetuneOptions p = o;
  p.output_dir = dir.file("stopped");
  int64_t steps = 0;
  FinetuneHooks stop;
  stop.stop_requested = [&] { return ++steps == 5; };
  ASSERT_TRUE(run_finetune(p, stop).interrupted);
  auto r = run_bertpt("finetune --output-dir " + shell_quote(p.output_dir) + " --resume auto --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json config = nlohmann::json::parse(testing::slurp(p.output_dir + "/run_config.json"));
  EXPECT_EQ(config["threads"], 1) << config.dump(2);
  EXPECT_EQ(config["precision"], "fp32");
  EXPECT_TRUE(testing::slurp(dir.file("straight/best/model.safetensors")) ==
              testing::slurp(dir.file("stopped/best/model.safetensors")))
      << "the resumed run ends with another model than the uninterrupted one";
}

}  // namespace
}  // namespace bertpt::classify
