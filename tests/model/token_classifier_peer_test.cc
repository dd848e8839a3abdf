// bertpt's token classifiers against transformers' (tests/peer/token_classifier.py): a
// BertForTokenClassification and a ModernBertForTokenClassification saved by save_pretrained load
// with every tensor and give transformers' logits on a padded batch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/atomic_file.h"
#include "common/test_util.h"
#include "model/checkpoint.h"
#include "tokenizer/peer.h"

namespace bertpt::model {
namespace {

at::Tensor tensor_of(const nlohmann::json& rows, at::ScalarType type) {
  std::vector<double> flat;
  std::vector<int64_t> shape = {int64_t(rows.size()), int64_t(rows[0].size())};
  for (const auto& r : rows) {
    for (const auto& v : r) {
      if (v.is_array()) {
        if (shape.size() == 2) shape.push_back(int64_t(v.size()));
        for (const auto& x : v) flat.push_back(x.get<double>());
      } else {
        flat.push_back(v.get<double>());
      }
    }
  }
  return at::tensor(flat, at::kDouble).reshape(shape).to(type);
}

void check_against_transformers(const std::string& arch, const std::string& cls) {
  testing::TempDir dir;
  testing::run_peer("token_classifier.py " + testing::shell_quote(dir.file("m")) + " " + arch + " 5");
  const nlohmann::json want = nlohmann::json::parse(read_file(dir.file("m/logits.json")));
  BertConfig config;
  LoadReport report;
  auto model = load_token_classifier(dir.file("m"), 5, &config, &report);
  EXPECT_TRUE(report.missing.empty()) << report.missing.front();
  EXPECT_TRUE(report.unexpected.empty());
  EXPECT_EQ(config.token_classifier_class(), cls);
  model->eval();
  at::NoGradGuard no_grad;
  const at::Tensor ids = tensor_of(want["input_ids"], at::kLong), mask = tensor_of(want["attention_mask"], at::kLong);
  const at::Tensor ours = model->forward(ids, mask).to(at::kDouble);
  const at::Tensor theirs = tensor_of(want["logits"], at::kDouble);
  ASSERT_EQ(ours.sizes(), theirs.sizes());
  // Compared where the mask attends: transformers leaves what it likes on padding.
  const at::Tensor keep = mask.to(at::kBool).unsqueeze(-1).expand_as(ours);
  const double diff = (ours - theirs).abs().masked_select(keep).max().item<double>();
  EXPECT_LT(diff, 1e-4) << arch;
  EXPECT_GT(theirs.masked_select(keep).std().item<double>(), 0.05);  // the logits are not all alike
}

TEST(TokenClassifierPeer, BertForTokenClassificationEqualsTransformers) {
  BERTPT_REQUIRE_PEER();
  check_against_transformers("bert", "BertForTokenClassification");
}

TEST(TokenClassifierPeer, ModernBertForTokenClassificationEqualsTransformers) {
  BERTPT_REQUIRE_PEER();
  check_against_transformers("modernbert", "ModernBertForTokenClassification");
}

}  // namespace
}  // namespace bertpt::model
