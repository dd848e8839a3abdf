// The model card (README.md) of a fine-tuned model (engine/model_card.h): the options, the data, the
// epochs so far and, given results.json, the best model's metrics on valid and test.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "classify/finetune_options.h"
#include "classify/finetune_task.h"
#include "model/bert_config.h"

namespace bertpt::classify {

// What the card says, at the point it is written.
struct FinetuneCardFacts {
  model::BertConfig config;
  int64_t parameters = 0;
  TaskCard task;
  bool per_token = false;
  int64_t train_examples = 0, num_labels = 0, valid_examples = 0, test_examples = 0;
  nlohmann::json history;  // the epochs' records so far
  int64_t step = 0, global_batch = 0, best_epoch = 0;
  std::string device;
  int world = 1;
  std::string libtorch_version;
};

// `report`: results.json (null while the run is going on).
std::string finetune_model_card(const FinetuneOptions& o, const FinetuneCardFacts& f, const nlohmann::json& report);

}  // namespace bertpt::classify
