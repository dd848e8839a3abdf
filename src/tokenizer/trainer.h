// BpeTrainer: learns a BPE vocabulary and its merges from word counts exactly as Hugging Face's
// BpeTrainer (tokenizers 0.23.3, models/bpe/trainer.rs) does. HF's WordPieceTrainer is that trainer
// with a "##" continuation prefix (docs/hf-compat.md), so WordPieceTrainer below is the same merge
// loop with WordPieceTrainerOptions' preset. Counting the words of a corpus is word_counter.h's job
// (or a pre-tokenizer's); this file is the merge loop.
//
// Rules, in order:
//  1. Special tokens get ids 0.., in the given order.
//  2. Alphabet: every character of every word, weighted by the word's count, and every character of
//     initial_alphabet (counted as the largest count, so a limit drops them last). With
//     limit_alphabet, only the most frequent survive (ties at the cut: the smaller code point
//     survives — HF leaves that tie to an unstable sort). Survivors get the next ids in code-point
//     order (a character that is already a special token keeps the special token's id).
//  3. Each word becomes its characters, characters outside the alphabet skipped. A character that is
//     not the word's first gets continuing_subword_prefix in front; the word's last character gets
//     end_of_word_suffix behind ("first" and "last" are positions in the word, so a word whose first
//     character was skipped still starts with a prefixed token, and one whose last character was
//     skipped has no suffixed token). These prefix/suffix forms get the next ids, forms found in more
//     distinct words first (equal numbers: smaller code point first, then prefix-only, suffix-only,
//     both). HF numbers them as it meets them, visiting the words in the order of a hash map seeded
//     at random: its order, and with it its tie-breaks, differ from run to run, but a form in many
//     words is met early in nearly every run. Ours is that most likely order, deterministic. (Code-
//     point order, used before, is unlike every HF run and broke ties against HF on text rich in one
//     non-Latin script.) Plain and byte-level BPE (no prefix, no suffix) have no forms: there HF is
//     deterministic and ours is identical to it, id for id and merge for merge.
//  4. Pair counts: every adjacent pair counts the word's count. A max-heap pops the largest count;
//     ties go to the smaller (left id, right id). A popped entry whose count is out of date is pushed
//     back with the current count.
//  5. Stop when the vocabulary has vocab_size tokens (checked before each merge), when the heap is
//     empty, or when the best count is < 1 or < min_frequency.
//  6. The new token is left + right without right's leading prefix; a string that already exists
//     keeps its id. Occurrences are merged left to right, non-overlapping, and the neighbours' pair
//     counts are updated. With max_token_length, a merge forms a neighbour pair only when the two
//     tokens together are shorter than max_token_length characters (HF's Word::merge: `<`, lengths in
//     the word's characters, prefix and suffix not counted); pairs of two characters always count.
// Like HF, each heap entry carries the set of words it was created for, and merging visits exactly
// those words: pairs that gain occurrences get a fresh entry holding only the words where they were
// formed. (This matters when a merge re-creates an existing token: the pair's older occurrences are
// merged when the older entry surfaces. Matching it is what makes our vocabulary HF's.) Entries for
// the same pair with the same count pop oldest first. A pair can so be merged twice; HF's BPE model
// keeps one rank per pair (its last), and merge_pairs below lists the merges as HF saves them.
//
// HF's progress bars ("Tokenize words", "Count pairs", "Compute merges") change nothing in the result;
// only the merge loop takes long enough to report, through MergeProgress.
//
// The result depends only on the word counts and the options: never on the order words were
// counted in, on thread counts or on hash-map layout.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/word_counts.h"

namespace bertpt::tokenizer {

// Every trainer option, declared once, with HF BpeTrainer's defaults: the CLI's flags and defaults and
// the JSON summary come from here.
struct BpeTrainerOptions {
  size_t vocab_size = 30000;             // the final vocabulary's size, specials and alphabet included
  uint64_t min_frequency = 0;            // a merge needs a pair count >= this (and >= 1)
  std::optional<size_t> limit_alphabet;  // keep at most this many characters (the most frequent)
  // Characters always in the alphabet, even when the words lack them (byte-level BPE passes the 256
  // characters of the ByteLevel byte map). Duplicates are harmless.
  std::vector<char32_t> initial_alphabet;
  std::vector<std::string> special_tokens;
  std::string continuing_subword_prefix;   // on every token not at a word's start ("": none, HF's None)
  std::string end_of_word_suffix;          // on every token at a word's end ("": none, HF's None)
  std::optional<size_t> max_token_length;  // see rule 6 (HF's max_token_length; none: no limit)
};

// HF's WordPieceTrainer (its BpeTrainer with the "##" prefix) with bertpt's defaults: BERT's five
// special tokens. `bertpt tokenizer train` defaults to vocab 32000.
struct WordPieceTrainerOptions : BpeTrainerOptions {
  WordPieceTrainerOptions() {
    special_tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    continuing_subword_prefix = "##";
  }
};

// Throws BadInput when the options cannot work: vocab_size 0, empty or duplicate special tokens,
// max_token_length 0, an initial_alphabet entry that is not a Unicode scalar value.
void validate(const BpeTrainerOptions& options);

// The checks every trainer's options share (BadInput on failure): special tokens non-empty and
// distinct; initial alphabet characters Unicode scalar values.
void validate_special_tokens(const std::vector<std::string>& special_tokens);
void validate_initial_alphabet(const std::vector<char32_t>& initial_alphabet);

struct TrainedVocabulary {
  std::vector<std::string> tokens;  // id order: specials, alphabet, prefix/suffix forms, merges
  // The merges a BPE model needs, (left, right) in rank order, as HF's tokenizer.json lists them: a
  // pair merged twice (see rule 6) appears once, at its last rank.
  std::vector<std::pair<std::string, std::string>> merge_pairs;

  // What happened, for the summary.
  size_t special_tokens = 0;
  size_t alphabet = 0;             // characters kept in the alphabet
  size_t alphabet_dropped = 0;     // characters removed by limit_alphabet
  size_t continuation_tokens = 0;  // prefix/suffix forms (rule 3)
  size_t merges = 0;               // merge steps done (a step may re-create an existing token)
  size_t merge_tokens = 0;         // tokens the merges added
  uint64_t words = 0;              // total word count (sum of counts)
  uint64_t distinct_words = 0;
  std::string stop_reason;  // "vocab_size", "no_pairs" or "min_frequency"
};

// Reports merge progress: (merges done, merges at most still possible before vocab_size is reached).
using MergeProgress = std::function<void(size_t done, size_t total)>;

class BpeTrainer {
 public:
  // Validates the options (see validate()).
  explicit BpeTrainer(BpeTrainerOptions options);

  // Learns the vocabulary and its merges. Throws BadInput when `words` is empty or when the initial
  // vocabulary (specials + alphabet + prefix/suffix forms) alone is larger than vocab_size: HF then
  // silently returns that larger vocabulary; we name the numbers instead, since the caller asked for
  // a smaller one. `words` must hold valid UTF-8.
  TrainedVocabulary train(const WordCounts& words, const MergeProgress& progress = {}) const;

  const BpeTrainerOptions& options() const { return options_; }

 private:
  BpeTrainerOptions options_;
};

// The same trainer, named for the BERT pipeline's callers; TrainedVocabulary::tokens is the
// WordPiece vocabulary (merge_pairs are not part of a WordPiece model).
class WordPieceTrainer : public BpeTrainer {
 public:
  explicit WordPieceTrainer(WordPieceTrainerOptions options) : BpeTrainer(std::move(options)) {}
};

}  // namespace bertpt::tokenizer
