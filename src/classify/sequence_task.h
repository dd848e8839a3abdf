// Sequence classification and regression as a fine-tuning task (classify/finetune_task.h), as
// transformers' *ForSequenceClassification + run_glue.py do them: one label per text or text pair
// (cross-entropy over the classes) or, for regression (classify/problem_type.h: STS-B), one number
// (one output, the squared error). Labelled JSONL / CSV / TSV in (classify/labeled_data.h).
#pragma once

#include <memory>

#include "classify/finetune_task.h"

namespace bertpt::classify {

std::unique_ptr<FinetuneTask> make_sequence_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok);

}  // namespace bertpt::classify
