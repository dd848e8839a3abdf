// Counting the words of a corpus for WordPiece training: documents from text::CorpusReader go through
// BertNormalizer and bert_pre_tokenize, and every word is counted.
//
// Parallel: the calling thread reads and cuts the document stream into batches; worker threads
// normalize, pre-tokenize and count into their own tables.
//
// Bounded memory (HF keeps every distinct word): the stream is cut into epochs of a fixed number of
// text bytes. At the end of each epoch the workers' tables are folded into the global one, and when
// that holds more than max_words distinct words the rarest are pruned (whole count classes, see
// WordCounts::prune_to). Epoch boundaries depend only on the corpus, and the global table only on
// the sums of the epoch's counts, so the result — pruned or not — is the same for every thread
// count. Memory: the global table (<= max_words words) plus, per worker, the distinct words of one
// epoch.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "text/corpus_reader.h"
#include "text/text_stats.h"
#include "tokenizer/normalizers/bert.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenizer/word_counts.h"

namespace bertpt::tokenizer {

struct WordCountOptions {
  NormalizerOptions normalizer;  // BERT's normalizer, unless `pre_tokenizer` is set
  // Another family's pipeline (byte-level BPE, Unigram): when `pre_tokenizer` is set, documents go
  // through `custom_normalizer` (null: none) and it instead of BERT's, as HF's trainers count words.
  NormalizerPtr custom_normalizer;
  PreTokenizerPtr pre_tokenizer;
  size_t threads = 0;                          // counting threads; 0 = one per hardware thread
  size_t max_words = 20'000'000;               // distinct words kept at most (rarest pruned beyond)
  size_t batch_bytes = 1 << 20;                // text handed to a worker at a time
  uint64_t epoch_bytes = uint64_t(256) << 20;  // text between two prune checkpoints
};

struct WordCountResult {
  WordCounts words;
  std::vector<text::SourceStats> sources;  // per --input
  text::SourceStats corpus;                // all inputs
  uint64_t pruned_words = 0;               // distinct words dropped by pruning (over all rounds)
  uint64_t pruned_occurrences = 0;         // their summed counts
  uint64_t pruned_max_count = 0;           // the largest count a pruned word had
  uint64_t prune_rounds = 0;
  size_t threads = 0;  // worker threads used
};

struct CountProgressInfo {
  uint64_t disk_bytes_read = 0;
  uint64_t disk_bytes_total = 0;
  uint64_t documents = 0;
  uint64_t words = 0;  // word occurrences counted so far (approximate while workers run)
};
// Called on the reading (calling) thread, often: throttle the drawing yourself.
using CountProgress = std::function<void(const CountProgressInfo&)>;

// Throws BadInput for unreadable or malformed inputs (from CorpusReader) and for max_words 0.
WordCountResult count_words(const text::CorpusOptions& corpus, const WordCountOptions& options,
                            const CountProgress& progress = {});

// Counts the words of one text (normalized and pre-tokenized) into `counts`; what the workers do
// with each document. `scratch` is reused between calls.
void count_document_words(std::string_view text, const BertNormalizer& normalizer, WordCounts& counts,
                          std::string& scratch, std::vector<std::string_view>& words);
// The same through any normalizer (may be null) and pre-tokenizer.
void count_document_words(std::string_view text, const Normalizer* normalizer, const PreTokenizer& pre_tokenizer,
                          WordCounts& counts, std::string& scratch, Words& words);

}  // namespace bertpt::tokenizer
