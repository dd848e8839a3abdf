// The model card (README.md) of a pre-training checkpoint (engine/model_card.h): the model, the
// dataset, the run so far and its last results.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "data/dataset.h"
#include "mlm/pretrain_options.h"
#include "model/bert_config.h"

namespace bertpt::mlm {

// What the card says, at the step it is written.
struct PretrainCardFacts {
  model::BertConfig config;
  int64_t parameters = 0;
  const data::Dataset* dataset = nullptr;  // the current phase's
  nlohmann::json phases;                   // PhaseData::phases_json (null without phases)
  double sequences_seen = 0, tokens_seen = 0;
  int64_t step = 0, global_batch = 0, per_device_batch = 0, grad_accum = 0;
  int world = 1;
  std::string device;
  double elapsed_sec = 0, cost_usd = -1;  // cost < 0: no price given
  nlohmann::json last_log, last_eval;     // the last training and evaluation records (null: none)
};

std::string pretrain_model_card(const PretrainOptions& o, const PretrainCardFacts& facts);

}  // namespace bertpt::mlm
