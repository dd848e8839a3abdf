// Where a pre-training run's model comes from: the checkpoint it resumes, the checkpoint --init-from
// names (continued pre-training), or --model (a preset, whose vocabulary and pad id follow the data,
// or a config.json). Checked against the data before anything is built.
#pragma once

#include <string>

#include "data/dataset.h"
#include "mlm/pretrain_options.h"
#include "model/bert_config.h"

namespace bertpt::mlm {

struct ModelSource {
  model::BertConfig config;  // torch_dtype float32, architectures the masked LM class
  std::string weights;       // model.safetensors to load; "" for a new initialisation
};

// `resume_dir`: the checkpoint being resumed ("" for a new run); `longest`: the run's dataset of the
// longest sequences. BadInput when the vocabularies differ, when the model's positions cannot hold
// the data, or when --init-from is not a safetensors checkpoint.
ModelSource resolve_model_source(const PretrainOptions& o, const std::string& resume_dir, const data::Dataset& longest);

}  // namespace bertpt::mlm
