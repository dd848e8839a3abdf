// Token classification (NER) as a fine-tuning task (classify/finetune_task.h), as transformers'
// *ForTokenClassification + its token-classification example (run_ner.py, label_all_tokens=False)
// do it: CoNLL sentences in (classify/tagged_words.h), the tags sorted into ids, each word's tag on
// its first sub-token and -100 (ignored) elsewhere; cross-entropy over the labelled tokens, the mean
// over all labelled tokens of the global batch (transformers' loss with num_items_in_batch); per epoch
// entity-level precision / recall / F1 with seqeval's conventions (classify/entity_metrics.h) over the
// words that truncation kept, and the accuracy per word.
#pragma once

#include <memory>

#include "classify/finetune_task.h"

namespace bertpt::classify {

std::unique_ptr<FinetuneTask> make_token_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok);

}  // namespace bertpt::classify
