// Training in phases of different sequence lengths (--phase-schedule over DATA/seq-LEN): the data and
// batch switch at the step boundary, exact resume on either side of it, the phase in the metrics.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "data/dataset.h"
#include "data/phase_schedule.h"
#include "data/prepare.h"
#include "mlm/pretrain.h"
#include "mlm/train_test_util.h"

namespace bertpt::mlm {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

class PhasedTrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text;
    for (const auto& d : testing::structured_documents(150)) text += d + "\n";
    testing::write_file(dir.file("corpus.txt"), text);
    data::PrepareOptions o;
    o.corpus.inputs = {dir.file("corpus.txt")};
    o.tokenizer = testing::write_test_tokenizer(dir);
    o.out = dir.file("data");
    o.threads = 1;
    o.valid_fraction = 0.1;
    data::prepare_lengths(o, {16, 32});
    model = testing::write_tiny_config(dir, int64_t(data::Dataset(data::length_dir(o.out, 16), "train").vocab_size()),
                                       0.1);
  }
  // 8 steps: 4 at 16 tokens (batch 8), 4 at 32 tokens (batch 2 x 2 accumulation).
  PretrainOptions phased(const std::string& out) {
    PretrainOptions o = testing::tiny_options(dir.file("data"), model, dir.file(out));
    o.phase_schedule = "16:0.5,32:0.5:2:2";
    o.max_steps = 8;
    o.warmup_steps = 2;
    o.save_steps = 0;
    return o;
  }
  std::vector<StepRecord> run(const PretrainOptions& o, int stop_after = 0, TrainResult* result = nullptr) {
    std::vector<StepRecord> steps;
    TrainHooks hooks;
    int polled = 0;
    if (stop_after > 0) hooks.stop_requested = [&, stop_after] { return ++polled >= stop_after; };
    hooks.on_step = [&](const StepRecord& r) { steps.push_back(r); };
    TrainResult r = run_pretraining(o, hooks);
    if (result) *result = r;
    return steps;
  }
  std::vector<nlohmann::json> metrics(const std::string& run) {
    std::vector<nlohmann::json> records;
    std::istringstream in(testing::slurp(dir.file(run + "/metrics.jsonl")));
    for (std::string line; std::getline(in, line);) records.push_back(nlohmann::json::parse(line));
    return records;
  }
  TempDir dir;
  std::string model;
};

TEST_F(PhasedTrainingTest, FirstPhaseIsAPlainRunOnItsDataThenDataAndBatchSwitch) {
  const auto steps = run(phased("phased"));
  ASSERT_EQ(steps.size(), 8u);
  // Phase 1 is exactly a plain run on DATA/seq-16 with the same schedule: same samples, masks, dropout.
  PretrainOptions plain = testing::tiny_options(data::length_dir(dir.file("data"), 16), model, dir.file("plain"));
  plain.max_steps = 8;
  plain.warmup_steps = 2;
  const auto reference = run(plain);
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(steps[i].loss, reference[i].loss) << "step " << i + 1;
  EXPECT_NE(steps[4].loss, reference[4].loss);  // from step 5 on: other data, other batch
  // Every log record names its phase, length and global batch.
  int train_records = 0;
  for (const nlohmann::json& r : metrics("phased")) {
    if (!r.contains("loss")) continue;
    ++train_records;
    const bool second = r["step"].get<int64_t>() > 4;
    EXPECT_EQ(r["phase"], second ? 2 : 1) << r.dump();
    EXPECT_EQ(r["seq_len"], second ? 32 : 16) << r.dump();
    EXPECT_EQ(r["global_batch"], second ? 4 : 8) << r.dump();  // 2 x 2 accumulation in phase 2
  }
  EXPECT_EQ(train_records, 8);
  const std::string card = testing::slurp(dir.file("phased/checkpoint-8/README.md"));
  EXPECT_NE(card.find("phase 2"), std::string::npos) << card;
}

TEST_F(PhasedTrainingTest, ResumesExactlyBeforeAtAndAfterTheSwitch) {
  const auto full = run(phased("full"));
  ASSERT_EQ(full.size(), 8u);
  for (int stop : {3, 4, 6}) {
    const std::string name = "stop-" + std::to_string(stop);
    TrainResult first;
    auto joined = run(phased(name), stop, &first);
    ASSERT_TRUE(first.interrupted);
    ASSERT_EQ(first.final_step, stop);
    PretrainOptions o = phased(name);
    o.resume = "auto";
    const auto rest = run(o);
    joined.insert(joined.end(), rest.begin(), rest.end());
    ASSERT_EQ(joined.size(), full.size()) << name;
    for (size_t i = 0; i < full.size(); ++i) {
      EXPECT_DOUBLE_EQ(joined[i].loss, full[i].loss) << name << ", step " << i + 1;
      EXPECT_DOUBLE_EQ(joined[i].grad_norm, full[i].grad_norm) << name << ", step " << i + 1;
    }
  }
}

TEST_F(PhasedTrainingTest, WrongDataOrScheduleIsAOneLineError) {
  PretrainOptions o = phased("bad");
  o.phase_schedule = "16:0.5,64:0.5";
  EXPECT_NE(testing::error_of([&] { run(o); }).find("seq-64 does not exist"), std::string::npos);
  o.phase_schedule = "";
  const std::string e = testing::error_of([&] { run(o); });
  EXPECT_NE(e.find("holds datasets of several lengths (seq-16, seq-32)"), std::string::npos) << e;

  run(phased("changed"), 3);
  PretrainOptions changed = phased("changed");
  changed.resume = "auto";
  changed.phase_schedule = "16:0.25,32:0.75";
  EXPECT_NE(testing::error_of([&] { run(changed); }).find("with another --phase-schedule"), std::string::npos);
}

}  // namespace
}  // namespace bertpt::mlm
