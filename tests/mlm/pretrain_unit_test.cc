// Pre-training options, MFU FLOPs, and the batch loader.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "common/error.h"
#include "data/dataset.h"
#include "mlm/batch_loader.h"
#include "mlm/pretrain_options.h"
#include "mlm/train_test_util.h"
#include "model/bert.h"
#include "perf/flops.h"

namespace bertpt::mlm {
namespace {

using testing::TempDir;

TEST(PretrainOptions, JsonRoundTripAndUnknownKeys) {
  PretrainOptions o;
  EXPECT_EQ(o.learning_rate, 5e-5);  // the guide's defaults
  EXPECT_EQ(o.per_device_batch_size, 32);
  EXPECT_EQ(o.max_steps, 100000);
  EXPECT_EQ(o.warmup_steps, 0);
  EXPECT_EQ(o.seed, 34u);
  EXPECT_EQ(o.save_steps, 5000);
  EXPECT_EQ(o.save_total_limit, 2);
  EXPECT_EQ(o.logging_steps, 0);  // automatic: about 30 records, every 100 steps on the guide's 100k (run_log.h)
  o.learning_rate = 1e-4;
  o.device = "cuda:1";
  o.overwrite_output_dir = true;
  PretrainOptions p;
  p.apply_json(o.to_json(), "test");
  EXPECT_EQ(p.to_json(), o.to_json());
  // Dashes are accepted for underscores, as on the command line.
  p.apply_json(nlohmann::json{{"per-device-batch-size", 7}}, "test");
  EXPECT_EQ(p.per_device_batch_size, 7);
  try {
    p.apply_json(nlohmann::json{{"learning_rat", 1}}, "run.json");
    FAIL() << "unknown key accepted";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("unknown train option \"learning_rat\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(p.apply_json(nlohmann::json{{"max_steps", "ten"}}, "run.json"), BadInput);
  EXPECT_THROW(p.apply_json(nlohmann::json{{"seed", -1}}, "run.json"), BadInput);
}

TEST(Flops, GuideFiguresForBertBase) {
  model::BertConfig c = model::builtin_preset("bert-base");
  c.vocab_size = 32000;
  perf::BertFlops f(c);
  // The guide's figures (docs/training.md, "MFU"): ≈ 86 GFLOP per 128-token sequence, ≈ 367 per 512, head at every
  // position.
  EXPECT_NEAR(f.train_flops_dense_head(1, 128) / 1e9, 86.4, 0.5);
  EXPECT_NEAR(f.train_flops_dense_head(1, 512) / 1e9, 367.2, 0.5);
  // The sparse head at 15% of the positions saves most of the head's share.
  EXPECT_LT(f.train_flops(1, 128, 0.15 * 128), f.train_flops_dense_head(1, 128) * 0.85);
  EXPECT_EQ(perf::known_accelerator_peak("NVIDIA H200", true), 989e12);
  EXPECT_EQ(perf::known_accelerator_peak("NVIDIA A100-SXM4-80GB", true), 312e12);
  EXPECT_EQ(perf::known_accelerator_peak("Tesla V100-SXM2-32GB", true), 125e12);
  EXPECT_EQ(perf::known_accelerator_peak("Intel Gaudi 2", true), 432e12);
  EXPECT_EQ(perf::known_accelerator_peak("Intel Gaudi 3 HL-325L", true), 1835e12);
  EXPECT_EQ(perf::known_accelerator_peak("Intel Gaudi 3", false), 0.0) << "no published fp32 figure";
  EXPECT_EQ(perf::known_accelerator_peak("Some CPU", true), 0.0);
}

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_dir = testing::make_dataset(dir, testing::structured_documents(120));
    dataset = std::make_shared<const data::Dataset>(data_dir, "train");
  }
  // The concatenated [input_ids; labels] of step `k` over all micro-batches of all ranks.
  std::pair<at::Tensor, at::Tensor> step_tensors(int64_t b, int64_t accum, int world, int k) {
    std::vector<at::Tensor> ids, labels;
    for (int r = 0; r < world; ++r) {
      LoaderOptions o;
      o.per_device_batch = b;
      o.grad_accum = accum;
      o.rank = r;
      o.world = world;
      o.masking = masking_for_dataset(*dataset, 0.15);
      BatchLoader loader(dataset, o);
      StepBatch sb;
      for (int i = 0; i <= k; ++i) sb = loader.next();
      for (auto& mb : sb.micro) {
        ids.push_back(mb.input_ids);
        labels.push_back(mb.labels);
      }
    }
    return {at::cat(ids), at::cat(labels)};
  }
  TempDir dir;
  std::string data_dir;
  std::shared_ptr<const data::Dataset> dataset;
};

TEST_F(LoaderTest, MasksDoNotDependOnBatchSplitOrRanks) {
  ASSERT_GT(dataset->size(), 40u);
  for (int k : {0, 3}) {  // step 3 of a 32-batch crosses an epoch boundary of this small dataset
    auto [ids32, lab32] = step_tensors(32, 1, 1, k);
    auto [ids8, lab8] = step_tensors(8, 4, 1, k);
    auto [ids_r, lab_r] = step_tensors(4, 2, 4, k);
    EXPECT_TRUE(ids32.equal(ids8));
    EXPECT_TRUE(lab32.equal(lab8));
    EXPECT_TRUE(ids32.equal(ids_r));
    EXPECT_TRUE(lab32.equal(lab_r));
  }
  // Masking really happened: ~15% of the non-special positions have labels.
  auto [ids, labels] = step_tensors(32, 1, 1, 0);
  double share = labels.ne(-100).sum().item<double>() / double(labels.numel());
  EXPECT_GT(share, 0.08);
  EXPECT_LT(share, 0.22);
  EXPECT_EQ(ids.eq(4).logical_and(labels.eq(-100)).sum().item<int64_t>(), 0);  // [MASK] only where predicted
}

TEST_F(LoaderTest, StartPositionContinuesTheSameSequence) {
  LoaderOptions o;
  o.per_device_batch = 4;
  o.masking = masking_for_dataset(*dataset, 0.15);
  BatchLoader a(dataset, o);
  a.next();
  StepBatch second = a.next();
  o.start_position = 4;
  BatchLoader b(dataset, o);
  StepBatch resumed = b.next();
  EXPECT_EQ(resumed.first_position, second.first_position);
  EXPECT_TRUE(resumed.micro[0].input_ids.equal(second.micro[0].input_ids));
  EXPECT_TRUE(resumed.micro[0].labels.equal(second.micro[0].labels));
}

}  // namespace
}  // namespace bertpt::mlm
