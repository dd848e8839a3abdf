// Tagging CoNLL sentences with a token classifier (BertForTokenClassification,
// ModernBertForTokenClassification), shared by fine-tuning's evaluation (classify/token_task.h) and
// `bertpt predict`: each word is tagged by the logits of its first sub-token (transformers'
// token-classification example); a word that truncation cut off has no tag.
#pragma once

#include <cstdint>
#include <vector>

#include "classify/classify.h"
#include "classify/encode.h"
#include "classify/tagged_words.h"
#include "model/masked_lm.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::classify {

struct EncodedSentences {
  std::vector<EncodedWords> words;       // ids and the word of each id
  std::vector<EncodedExample> examples;  // the same ids as classifier input (token type 0)
  int64_t truncated = 0;                 // sentences cut to max_len
};
EncodedSentences encode_sentences(const tokenizer::Tokenizer& tok, const std::vector<TaggedSentence>& sentences,
                                  size_t max_len);

struct SentenceTags {
  std::vector<int32_t> tag;  // per word: the tag id, -1 for a word truncation cut off
  std::vector<float> score;  // per word: the tag's probability (softmax of the first sub-token's logits)
};
// The tags of sentences `indices` (rows in that order).
std::vector<SentenceTags> tag_sentences(model::Classifier& model, const EncodedSentences& sentences,
                                        const std::vector<size_t>& indices, const ClassifyOptions& options);

}  // namespace bertpt::classify
