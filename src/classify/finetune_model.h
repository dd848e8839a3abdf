// The model a fine-tuning run starts from: a checkpoint's encoder with a new head (or the run's own
// head, resuming), or a random initialisation from a preset; and the tokenizer it reads with.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "classify/finetune_options.h"
#include "classify/finetune_task.h"
#include "model/architecture.h"
#include "model/bert_config.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::classify {

// --tokenizer, else the model directory's (BadInput when it has none).
std::string resolve_tokenizer_dir(const FinetuneOptions& o);

// The classifier of --model for `task`, with `config` filled in; checked against the tokenizer and
// --max-seq-len. `resuming`: the run's own checkpoint is loaded over it next, head included, so no
// head is new. `message` says what was initialised.
std::shared_ptr<model::Classifier> make_classifier(const FinetuneOptions& o, const tokenizer::Tokenizer& tok,
                                                   const std::string& tok_dir, const FinetuneTask& task,
                                                   model::BertConfig& config, bool resuming,
                                                   const std::function<void(const std::string&)>& message);

}  // namespace bertpt::classify
