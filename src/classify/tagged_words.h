// Token classification data (NER): sentences of words with one tag each, and their encoding with
// labels on the first sub-token of each word, as transformers' token-classification example
// (run_ner.py, label_all_tokens=False) builds them. No LibTorch here.
//
// CoNLL files: one word per line, its columns separated by spaces or tabs, the word first and its
// tag last (CoNLL-2003's "EU NNP B-NP B-ORG", SciBERT's "word POS chunk tag"); a blank line ends a
// sentence; "-DOCSTART-" lines are document marks, skipped. Compressed files are read too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace bertpt::classify {

struct TaggedSentence {
  std::vector<std::string> words;
  std::vector<std::string> tags;  // one per word; empty when read without tags
  uint64_t line = 0;              // 1-based line of the first word
};

// Every sentence of `path`. `require_tags`: a line of one column is an error naming the file and
// line (a word without its tag); otherwise such lines are words to tag (predict input). BadInput for
// a missing file and for a file without sentences.
std::vector<TaggedSentence> read_conll(const std::string& path, bool require_tags);

// The distinct tags of `sentences` in sorted order: the label map of a tagger (O, B-X, I-X, ...).
std::vector<std::string> tag_set(const std::vector<TaggedSentence>& sentences);

// A sentence as model input: [CLS] sub-tokens of each word [SEP], at most `max_len` ids (the words'
// tokens cut at the end, as truncation=True does). Each word is tokenized alone, as a
// pre-tokenized input (is_split_into_words=True) is; with a RoBERTa tokenizer (byte-level BPE and
// RobertaProcessing) after a space ("Ġword"), as run_ner.py's add_prefix_space=True tokenizes it for
// RoBERTa: a word's pieces are then those it has inside running text.
struct EncodedWords {
  std::vector<uint32_t> ids;
  std::vector<int32_t> word_of;      // per id: the word it belongs to, -1 for [CLS]/[SEP]
  std::vector<int32_t> first_token;  // per word: the index of its first id, -1 when cut off or empty
  bool truncated = false;
};
EncodedWords encode_words(const tokenizer::Tokenizer& tok, const std::vector<std::string>& words, size_t max_len);

// Per id: the tag id of the word it starts (`tag_ids` per word), -100 (ignored by the loss) on
// special tokens and on a word's other sub-tokens.
std::vector<int64_t> first_token_labels(const EncodedWords& e, const std::vector<int64_t>& tag_ids);

}  // namespace bertpt::classify
