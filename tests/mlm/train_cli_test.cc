// The model commands through the bertpt binary: errors exit 1 with a clear message, SIGINT saves and
// exits 0, eval is repeatable, fill-mask and plot work on a trained checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "data/dataset.h"
#include "mlm/train_test_util.h"

namespace bertpt::mlm {
namespace {

namespace fs = std::filesystem;
using testing::run_bertpt;
using testing::shell_quote;
using testing::TempDir;

class TrainCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data = testing::make_dataset(dir, testing::structured_documents(150));
    vocab = int64_t(data::Dataset(data, "train").vocab_size());
    model = testing::write_tiny_config(dir, vocab, 0.1);
  }
  std::string base_args(const std::string& out) {
    return "train --data " + shell_quote(data) + " --model " + shell_quote(model) + " --output-dir " +
           shell_quote(out) +
           " --precision fp32 --threads 1 --per-device-batch-size 8 --learning-rate 1e-3 --peak-tflops 1";
  }
  TempDir dir;
  std::string data, model;
  int64_t vocab = 0;
};

TEST_F(TrainCliTest, BadInputsExitOneWithAClearMessage) {
  const std::string wrong = testing::write_tiny_config(dir, vocab + 7, 0.1, "wrong.json");
  auto r = run_bertpt("train --data " + shell_quote(data) + " --model " + shell_quote(wrong) + " --output-dir " +
                      shell_quote(dir.file("x")) + " --max-steps 1");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("vocabulary mismatch"), std::string::npos) << r.err;

  r = run_bertpt("train --data " + shell_quote(dir.file("nope")) + " --output-dir " + shell_quote(dir.file("x")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;

  r = run_bertpt(base_args(dir.file("x")) + " --resume " + shell_quote(dir.file("x/checkpoint-9")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("checkpoint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;

  r = run_bertpt(base_args(dir.file("x")) + " --no-such-flag 3");
  EXPECT_EQ(r.exit_code, 1) << r.err;

  // No GPU in this machine (CI): a CPU-only or a CUDA build refuses --device cuda in one line + hint,
  // naming which of the two it is.
  r = run_bertpt(base_args(dir.file("x")) + " --device cuda");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.find("CPU-only LibTorch") != std::string::npos ||
              r.err.find("no CUDA device is visible") != std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Exception raised"), std::string::npos) << r.err;
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;

  // seq_len above max_position_embeddings.
  testing::write_file(dir.file("short.json"),
                      "{\"vocab_size\": " + std::to_string(vocab) +
                          ", \"hidden_size\": 32, \"num_hidden_layers\": 1, \"num_attention_heads\": 2,"
                          " \"intermediate_size\": 64, \"max_position_embeddings\": 16}");
  r = run_bertpt("train --data " + shell_quote(data) + " --model " + shell_quote(dir.file("short.json")) +
                 " --output-dir " + shell_quote(dir.file("x")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("max_position_embeddings"), std::string::npos) << r.err;

  // --init-from a directory with only pytorch_model.bin.
  fs::create_directories(dir.file("pt"));
  testing::write_file(dir.file("pt/pytorch_model.bin"), "x");
  r = run_bertpt(base_args(dir.file("x")) + " --init-from " + shell_quote(dir.file("pt")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("pytorch_model.bin"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out of scope"), std::string::npos) << r.err;

  // --config with an unknown key.
  testing::write_file(dir.file("run.json"), "{\"learning_rate\": 0.001, \"warmup\": 3}");
  r = run_bertpt(base_args(dir.file("x")) + " --config " + shell_quote(dir.file("run.json")));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("unknown train option \"warmup\""), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("x/checkpoint-1")));
}

TEST_F(TrainCliTest, ConfigFileAndFlagsThenEvalFillMaskPlot) {
  const std::string out = dir.file("run");
  testing::write_file(dir.file("run.json"), "{\"max_steps\": 4, \"learning_rate\": 0.5, \"logging-steps\": 2}");
  // Flags win over the file: the effective learning rate is 1e-3.
  auto r = run_bertpt(base_args(out) + " --config " + shell_quote(dir.file("run.json")) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["final_step"], 4);
  auto cfg = nlohmann::json::parse(testing::slurp(out + "/run_config.json"));
  EXPECT_EQ(cfg["max_steps"], 4);
  EXPECT_EQ(cfg["learning_rate"], 1e-3);
  EXPECT_EQ(cfg["logging_steps"], 2);
  // metrics.jsonl: logged steps with the documented fields.
  std::string metrics = testing::slurp(out + "/metrics.jsonl");
  auto first = nlohmann::json::parse(metrics.substr(0, metrics.find('\n')));
  EXPECT_EQ(first["step"], 2);
  for (const char* k :
       {"loss", "mlm_accuracy", "learning_rate", "grad_norm", "tokens_per_sec", "seq_per_sec", "mfu", "elapsed_sec"}) {
    EXPECT_TRUE(first.contains(k)) << k;
  }
  EXPECT_NE(metrics.find("eval_perplexity"), std::string::npos);

  const std::string ck = out + "/checkpoint-4";
  auto e1 = run_bertpt("eval --model " + shell_quote(ck) + " --data " + shell_quote(data) + " --json --threads 1");
  auto e2 = run_bertpt("eval --model " + shell_quote(ck) + " --data " + shell_quote(data) + " --json --batch-size 5");
  ASSERT_EQ(e1.exit_code, 0) << e1.err;
  ASSERT_EQ(e2.exit_code, 0) << e2.err;
  auto j1 = nlohmann::json::parse(e1.out), j2 = nlohmann::json::parse(e2.out);
  EXPECT_NEAR(j1["eval_loss"].get<double>(), j2["eval_loss"].get<double>(), 1e-5);
  EXPECT_EQ(j1["eval_accuracy"], j2["eval_accuracy"]);
  EXPECT_GT(j1["eval_perplexity"].get<double>(), 1.0);

  // The checkpoint's model card: the hub's front matter and the run's own numbers, incl. the final
  // evaluation (written after the last save).
  const std::string card = testing::slurp(ck + "/README.md");
  EXPECT_EQ(card.rfind("---\nlibrary_name: transformers\npipeline_tag: fill-mask\n", 0), 0u) << card;
  EXPECT_NE(card.find("| steps | 4 of 4 |"), std::string::npos) << card;
  EXPECT_NE(card.find("held-out MLM loss / perplexity (step 4)"), std::string::npos) << card;

  auto f = run_bertpt("fill-mask --model " + shell_quote(ck) + " --top-k 3 --json 'the cat sat on the [MASK].'");
  ASSERT_EQ(f.exit_code, 0) << f.err;
  auto fj = nlohmann::json::parse(f.out);
  const auto& preds = fj["results"][0]["masks"][0]["predictions"];
  ASSERT_EQ(preds.size(), 3u);
  double total = 0;
  for (const auto& p : preds) {
    total += p["score"].get<double>();
    EXPECT_TRUE(p.contains("token_str"));
    EXPECT_EQ(p["sequence"].get<std::string>().rfind("the cat sat on the", 0), 0u) << p.dump();
  }
  EXPECT_GT(preds[0]["score"].get<double>(), preds[2]["score"].get<double>() - 1e-12);
  EXPECT_LE(total, 1.0 + 1e-6);
  // Several texts, one that CLI11 would read as a "[a,b]" list, and the pipeline's multi-mask form:
  // with more than one [MASK] the sequence keeps the special tokens.
  auto multi = run_bertpt("fill-mask --model " + shell_quote(ck) + " --json '[MASK] sat, [MASK]' 'the [MASK].'");
  ASSERT_EQ(multi.exit_code, 0) << multi.err;
  auto mj = nlohmann::json::parse(multi.out);
  ASSERT_EQ(mj["results"].size(), 2u);
  EXPECT_EQ(mj["results"][0]["text"], "[MASK] sat, [MASK]");
  ASSERT_EQ(mj["results"][0]["masks"].size(), 2u);
  EXPECT_EQ(mj["results"][0]["masks"][0]["predictions"][0]["sequence"].get<std::string>().rfind("[CLS] ", 0), 0u);
  EXPECT_EQ(mj["results"][1]["masks"][0]["predictions"][0]["sequence"].get<std::string>().find("[CLS]"),
            std::string::npos);
  auto unknown = run_bertpt("fill-mask --model " + shell_quote(ck) + " --bogus 'the [MASK].'");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown option --bogus"), std::string::npos) << unknown.err;
  auto nomask = run_bertpt("fill-mask --model " + shell_quote(ck) + " 'no mask here'");
  EXPECT_EQ(nomask.exit_code, 1);
  EXPECT_NE(nomask.err.find("[MASK]"), std::string::npos) << nomask.err;

  auto p = run_bertpt("plot " + shell_quote(out) + " --json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto pj = nlohmann::json::parse(p.out);
  EXPECT_EQ(pj["out"], nlohmann::json({out + "/curves.png", out + "/curves.svg"}));
  EXPECT_EQ(testing::slurp(out + "/curves.png").substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string svg = testing::slurp(out + "/curves.svg");  // cairo's SVG
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST_F(TrainCliTest, InitFromTrainsTheCheckpointsArchitectureAndSaysSo) {
  auto pre = run_bertpt(base_args(dir.file("pre")) + " --max-steps 2 --quiet");
  ASSERT_EQ(pre.exit_code, 0) << pre.err;
  const std::string ck = dir.file("pre/checkpoint-2");
  auto args = [&](const std::string& out) {
    return "train --data " + shell_quote(data) + " --init-from " + shell_quote(ck) + " --output-dir " +
           shell_quote(dir.file(out)) +
           " --precision fp32 --threads 1 --per-device-batch-size 8 --max-steps 1 --peak-tflops 1 --quiet";
  };
  // A --model of another architecture (bert-tiny: hidden 128; the checkpoint: hidden 32) contradicts the
  // checkpoint: refused in one line, nothing written.
  auto r = run_bertpt(args("tiny") + " --model bert-tiny");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("bertpt: error: --model bert-tiny is not the architecture of --init-from " + ck + " ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("hidden_size 128/32"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint: drop --model; the checkpoint's config is used"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("tiny/run_config.json")));
  // A checkpoint of another vocabulary than the data's: one line naming it, and how to prepare the
  // data with its tokenizer.
  const std::string other = dir.file("other-vocab");
  fs::copy(ck, other, fs::copy_options::recursive);
  auto other_config = nlohmann::json::parse(testing::slurp(other + "/config.json"));
  other_config["vocab_size"] = vocab + 7;
  testing::write_file(other + "/config.json", other_config.dump());
  r = run_bertpt("train --data " + shell_quote(data) + " --init-from " + shell_quote(other) + " --output-dir " +
                 shell_quote(dir.file("other")) + " --max-steps 1 --quiet");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("vocabulary mismatch: the model (--init-from " + other + ") has vocab_size " +
                       std::to_string(vocab + 7)),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("hint: prepare the data with the checkpoint's tokenizer: bertpt prepare --tokenizer " + other),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  // The same architecture as --model (the config the checkpoint was trained from), or no --model:
  // run_config.json records the checkpoint as the model, not a --model or the default bert-base.
  for (const std::string& flag : {" --model " + shell_quote(model), std::string()}) {
    const std::string out = flag.empty() ? "no-model" : "same-model";
    r = run_bertpt(args(out) + flag);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto config = nlohmann::json::parse(testing::slurp(dir.file(out + "/run_config.json")));
    EXPECT_EQ(config["model"], ck) << out;
    EXPECT_EQ(config["init_from"], ck) << out;
  }
  // The model card says where the weights came from.
  const std::string card = testing::slurp(dir.file("no-model/checkpoint-1/README.md"));
  EXPECT_NE(card.find("A BERT masked language model continued from " + ck), std::string::npos) << card;
}

TEST_F(TrainCliTest, APresetTakesTheDatasetsVocabularyAndPadIdAndItsCardNamesTheFamily) {
  // roberta-tiny's own pad id is 1 (<pad> of RoBERTa's vocabulary); this dataset's WordPiece [PAD] is 0.
  const int64_t pad = data::Dataset(data, "train").manifest().special_ids.pad;
  ASSERT_EQ(pad, 0);
  auto r = run_bertpt("train --data " + shell_quote(data) + " --model roberta-tiny --output-dir " +
                      shell_quote(dir.file("rob")) +
                      " --precision fp32 --threads 1 --per-device-batch-size 8 --max-steps 1 --peak-tflops 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto config = nlohmann::json::parse(testing::slurp(dir.file("rob/checkpoint-1/config.json")));
  EXPECT_EQ(config["model_type"], "roberta");
  EXPECT_EQ(config["pad_token_id"], pad);
  EXPECT_EQ(config["vocab_size"], vocab);
  const std::string card = testing::slurp(dir.file("rob/checkpoint-1/README.md"));
  EXPECT_NE(card.find("A RoBERTa masked language model trained from scratch"), std::string::npos) << card;
  EXPECT_NE(card.find("WordPiece, "), std::string::npos) << card;
}

TEST_F(TrainCliTest, ResumeAutoWarnsOnceOfTheCheckpointItSkipsForLackingDone) {
  const std::string out = dir.file("run");
  auto r = run_bertpt(base_args(out) + " --max-steps 2 --save-steps 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::create_directories(out + "/checkpoint-3");  // a save cut short: no DONE marker
  testing::write_file(out + "/checkpoint-3/config.json", "{");
  r = run_bertpt(base_args(out) + " --resume auto --max-steps 4 --save-steps 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warning = "bertpt: warning: --resume auto: skipped " + out + "/checkpoint-3";
  const size_t at = r.err.find(warning);
  EXPECT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warning, at + 1), std::string::npos) << "said more than once:\n" << r.err;
  EXPECT_NE(r.err.find("resuming " + out + "/checkpoint-2 at step 2"), std::string::npos) << r.err;
}

TEST_F(TrainCliTest, AnMfuAbove100PercentSaysThePeakIsTooLowOnce) {
  // 1e-9 TFLOP/s (1 kFLOP/s) is far below any real rate: every record's MFU is above 100%.
  auto r = run_bertpt("train --data " + shell_quote(data) + " --model " + shell_quote(model) + " --output-dir " +
                      shell_quote(dir.file("low-peak")) +
                      " --precision fp32 --threads 1 --per-device-batch-size 8 --max-steps 4 --logging-steps 1"
                      " --peak-tflops 1e-9");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warning = "MFU above 100%: --peak-tflops (0.0 GFLOP/s per device) is below the rate this run";
  const size_t at = r.err.find(warning);
  EXPECT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warning, at + 1), std::string::npos) << "said more than once:\n" << r.err;
  // A peak above the rate reached (the fixture's 1 TFLOP/s) says nothing.
  r = run_bertpt(base_args(dir.file("high-peak")) + " --max-steps 2 --logging-steps 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("MFU above 100%"), std::string::npos) << r.err;
}

TEST_F(TrainCliTest, SigintSavesACheckpointAndExitsZero) {
  const std::string out = dir.file("sig");
  auto r = testing::interrupt_after_first_log(
      base_args(out) + " --max-steps 100000 --logging-steps 1 --save-steps 0 --quiet", out + "/metrics.jsonl");
  EXPECT_NE(r.out.find("rc=0"), std::string::npos) << r.out << r.err;
  const auto checkpoints = testing::checkpoints_in(out);
  ASSERT_EQ(checkpoints.size(), 1u) << "no checkpoint after SIGINT";
  EXPECT_TRUE(checkpoints[0].second) << checkpoints[0].first << " has no DONE";
  // And it resumes.
  auto r2 = run_bertpt(base_args(out) + " --resume auto --max-steps 1 --json");
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
}

}  // namespace
}  // namespace bertpt::mlm
