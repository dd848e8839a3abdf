// Training a tokenizer from raw text, end to end: count the corpus's words (word_counter.h:
// parallel, bounded memory) through the family's normalizer and pre-tokenizer (family.h), learn the
// vocabulary as Hugging Face's trainers do (trainer.h: WordPiece and BPE, deterministic;
// unigram_trainer.h) and save a directory transformers loads (hf_files.h): tokenizer.json,
// tokenizer_config.json, special_tokens_map.json (and vocab.txt for WordPiece), plus
// bertpt_tokenizer_train.json (the effective options and the summary). `bertpt tokenizer train` is
// this function behind flags.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "text/corpus_reader.h"
#include "text/text_stats.h"
#include "tokenizer/family.h"
#include "tokenizer/trainer.h"
#include "tokenizer/unigram_trainer.h"
#include "tokenizer/word_counter.h"

namespace bertpt::tokenizer {

struct TrainFromCorpusOptions {
  text::CorpusOptions corpus;
  // How the caller spelled corpus.format, recorded as given ("txt" stays "txt"); empty: the
  // canonical name (text::format_name).
  std::string format_spelling;
  TokenizerFamily family = TokenizerFamily::WordPiece;
  WordCountOptions counting;  // normalizer (WordPiece's), threads, max_words
  // The merge trainer's options (WordPiece, BPE: the family sets the "##" prefix and the byte-level
  // alphabet); vocab_size, min_frequency and special_tokens apply to every family.
  WordPieceTrainerOptions trainer;
  UnigramTrainerOptions unigram;  // Unigram's own (its vocab_size and specials come from `trainer`)
  std::string out;                // the output directory (created)
};

// Throws BadInput when the options cannot work, before a byte of the corpus is read: the trainer's
// options (validate() in trainer.h), special tokens without [UNK], [CLS] or [SEP] (a BERT tokenizer
// needs all three), no output directory, or an output path that is not a directory. The corpus
// options were checked when they were parsed (text::parse_format, text::parse_doc_per).
void validate(const TrainFromCorpusOptions& options);

// The counting threads the run uses: options.counting.threads, or one per hardware thread for 0.
size_t counting_threads(const TrainFromCorpusOptions& options);

// The effective options as bertpt_tokenizer_train.json records them under "options".
nlohmann::json to_json(const TrainFromCorpusOptions& options);

// What train_from_corpus reports while it runs, all on the calling thread. Every member may be empty.
struct TrainFromCorpusProgress {
  CountProgress counting;               // often, while words are counted: throttle the drawing yourself
  std::function<void()> counting_done;  // once, after the last `counting` call
  MergeProgress merging;                // while merges are learned
  std::function<void()> merging_done;   // once, after the last `merging` call
};

struct TrainFromCorpusResult {
  std::string out;
  size_t requested_vocab_size = 0;
  TrainedVocabulary vocab;                 // the tokens in id order and what the merge loop did (Unigram: its pieces)
  size_t em_iterations = 0, prunings = 0;  // Unigram's EM

  // From the word count (word_counter.h, WordCountResult).
  std::vector<text::SourceStats> sources;  // per input
  text::SourceStats corpus;                // all inputs
  uint64_t pruned_words = 0;
  uint64_t pruned_occurrences = 0;
  uint64_t pruned_max_count = 0;
  uint64_t prune_rounds = 0;
  size_t threads = 0;  // counting threads used

  // Wall-clock time of each stage; `seconds` is the whole run.
  double seconds = 0, seconds_counting = 0, seconds_merging = 0, seconds_saving = 0;
};

// The summary as bertpt_tokenizer_train.json records it under "summary" (and `--json` prints it).
nlohmann::json to_json(const TrainFromCorpusResult& result);

// Validates (see validate()), counts, trains and writes every file into options.out. Throws
// BadInput for bad options, unreadable or malformed inputs, a corpus without words, and a vocab size
// smaller than the initial vocabulary (WordPieceTrainer::train).
TrainFromCorpusResult train_from_corpus(const TrainFromCorpusOptions& options,
                                        const TrainFromCorpusProgress& progress = {});

}  // namespace bertpt::tokenizer
