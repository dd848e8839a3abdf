// WordPieceTrainer: learns a BERT WordPiece vocabulary from word counts, the way Hugging Face's
// WordPieceTrainer does (it is HF's BPE trainer with a "##" continuation prefix; docs/hf-compat.md).
// Counting the words of a corpus is word_counter.h's job; this file is the merge loop.
//
// Rules, in order:
//  1. Special tokens get ids 0.., in the given order.
//  2. Alphabet: every character of every word, weighted by the word's count. With limit_alphabet,
//     only the most frequent survive (ties at the cut: the smaller code point survives — HF leaves
//     that tie to an unstable sort). Survivors get the next ids in code-point order.
//  3. Each word becomes its characters, every non-initial one as prefix+char; characters outside
//     the alphabet are skipped (a word whose first character was skipped still starts with "##").
//     The prefix+char tokens get the next ids, characters found after the first character of more
//     distinct words first (equal numbers: smaller code point first). HF numbers them as it meets
//     them, visiting the words in the order of a hash map seeded at random: its order, and with it
//     its tie-breaks, differ from run to run, but a character in many words is met early in nearly
//     every run. Ours is that most likely order, deterministic. (Code-point order, used before, is
//     unlike every HF run and broke ties against HF on text rich in one non-Latin script.)
//  4. Pair counts: every adjacent pair counts the word's count. A max-heap pops the largest count;
//     ties go to the smaller (left id, right id). A popped entry whose count is out of date is pushed
//     back with the current count.
//  5. Stop when the vocabulary has vocab_size tokens (checked before each merge), when the heap is
//     empty, or when the best count is < 1 or < min_frequency.
//  6. The new token is left + right without right's leading prefix; a string that already exists
//     keeps its id. Occurrences are merged left to right, non-overlapping, and the neighbours' pair
//     counts are updated.
// Like HF, each heap entry carries the set of words it was created for, and merging visits exactly
// those words: pairs that gain occurrences get a fresh entry holding only the words where they were
// formed. (This matters when a merge re-creates an existing token: the pair's older occurrences are
// merged when the older entry surfaces. Matching it is what makes our vocabulary HF's.) Entries for
// the same pair with the same count pop oldest first.
//
// The result depends only on the word counts and the options: never on the order words were
// counted in, on thread counts or on hash-map layout.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/word_counts.h"

namespace bertpt::tokenizer {

// Every trainer option, declared once: the CLI's flags and defaults and the JSON summary come from here.
struct WordPieceTrainerOptions {
  size_t vocab_size = 30000;             // HF's default (`bertpt tokenizer train` defaults to 32000)
  uint64_t min_frequency = 0;            // a merge needs a pair count >= this (and >= 1)
  std::optional<size_t> limit_alphabet;  // keep at most this many characters (the most frequent)
  std::vector<std::string> special_tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  std::string continuing_subword_prefix = "##";  // "" trains plain BPE (HF's BpeTrainer defaults)
};

// Throws BadInput when the options cannot work: vocab_size 0, empty or duplicate special tokens.
void validate(const WordPieceTrainerOptions& options);

struct TrainedVocabulary {
  std::vector<std::string> tokens;  // id order: specials, alphabet, prefix forms, merges

  // What happened, for the summary.
  size_t special_tokens = 0;
  size_t alphabet = 0;             // characters kept in the alphabet
  size_t alphabet_dropped = 0;     // characters removed by limit_alphabet
  size_t continuation_tokens = 0;  // prefix+char tokens
  size_t merges = 0;               // merge steps done (a step may re-create an existing token)
  size_t merge_tokens = 0;         // tokens the merges added
  uint64_t words = 0;              // total word count (sum of counts)
  uint64_t distinct_words = 0;
  std::string stop_reason;  // "vocab_size", "no_pairs" or "min_frequency"
};

// Reports merge progress: (merges done, merges at most still possible before vocab_size is reached).
using MergeProgress = std::function<void(size_t done, size_t total)>;

class WordPieceTrainer {
 public:
  // Validates the options (see validate()).
  explicit WordPieceTrainer(WordPieceTrainerOptions options);

  // Learns the vocabulary. Throws BadInput when `words` is empty or when the initial vocabulary
  // (specials + alphabet + prefix forms) alone is larger than vocab_size: HF then silently returns
  // that larger vocabulary; we name the numbers instead, since the caller asked for a smaller one.
  // `words` must hold valid UTF-8.
  TrainedVocabulary train(const WordCounts& words, const MergeProgress& progress = {}) const;

  const WordPieceTrainerOptions& options() const { return options_; }

 private:
  WordPieceTrainerOptions options_;
};

}  // namespace bertpt::tokenizer
