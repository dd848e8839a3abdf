// UnigramTrainer: learns a Unigram (SentencePiece) vocabulary with scores from word counts, following
// Hugging Face's UnigramTrainer (tokenizers 0.23.3, models/unigram/trainer.rs). HF's trainer works on
// the pre-tokenized words and their counts (its `feed` counts them; each word is one "sentence"),
// which is what WordCounts holds.
//
// The algorithm, in order:
//  1. Seeds. Every character, weighted by the counts of the words it occurs in, sorted by count then
//     code point, both descending; then the frequent substrings of the distinct words: those that
//     occur at least twice in the words joined by '\0' (each distinct word once, counts ignored) and
//     are followed by at least two different characters there (the internal nodes of the suffix tree,
//     as HF's esaxx enumerates them), of 2 to max_piece_length characters, scored occurrences x length,
//     sorted by score then by the string (both descending), until there are seed_size seeds.
//     Scores become log probabilities (log score - log of their sum).
//  2. EM, n_sub_iterations times: the E step sums, over every word, count x the marginal probability
//     of each piece in the word's lattice (forward-backward in log space; a character no one-
//     character piece covers is an unknown node scored min score - 10); the M step drops pieces
//     expected fewer than 0.5 times and scores the rest digamma(expected) - digamma(sum) (HF's
//     Bayesian EM).
//  3. Unless the pieces are at most vocab_size x 1.1, prune: each piece's loss is how much the
//     likelihood drops when its Viterbi occurrences are re-segmented into its second-best
//     segmentation (with HF's normaliser: log(sum + freq x (number of pieces - 1))); pieces no Viterbi
//     path uses go, pieces without an alternative stay, and the highest losses fill up to
//     max(vocab_size x 1.1, pieces x shrinking_factor). Then EM again.
//  4. The final vocabulary: [unk_token when it is not a special token], the special tokens (score 0),
//     then every character of the words and of initial_alphabet (a character the model lacks: min
//     score + 0.0001 x its rank, in code-point order) and the model's pieces in order until
//     vocab_size tokens, all sorted by score, descending (a stable sort). A piece or character equal
//     to a special token is left out (HF lists it twice, and its Unigram model keeps the later id).
//
// Where HF is not deterministic, we are (the result depends only on the counts and the options, never
// on word order or thread counts): HF's float sums follow its thread chunks and hash-map order; ours
// add the E step's expectations in fixed point (2^-32 of a count at most, for every order the same),
// and where HF walks a hash set (the required characters, whose order breaks score ties) we take code
// points in order. Ties between equal Viterbi paths go to HF's choice: the earliest-starting last
// piece; between a piece and an equally good second-best segmentation (HF: its heap's order), to the
// piece. HF matches its training placeholder "<UNK>" like any piece (a word containing "<UNK>" makes
// its likelihood NaN and HF panics); ours never matches it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/word_counts.h"

namespace bertpt::tokenizer {

// Every Unigram trainer option, declared once, with HF UnigramTrainer's defaults.
struct UnigramTrainerOptions {
  size_t vocab_size = 8000;        // the final vocabulary's size, specials and unk included
  size_t n_sub_iterations = 2;     // EM iterations between prunings
  double shrinking_factor = 0.75;  // each pruning keeps at least this share of the pieces
  std::vector<std::string> special_tokens;
  std::vector<char32_t> initial_alphabet;  // characters always in the vocabulary
  std::string unk_token;                   // "": none (HF's None): the model then has no unk id
  size_t max_piece_length = 16;            // in characters
  size_t seed_size = 1'000'000;            // seed pieces at most (characters first)
  size_t threads = 0;                      // 0: one per hardware thread; the result never depends on it
};

// Throws BadInput when the options cannot work: vocab_size 0, empty or duplicate special tokens,
// max_piece_length outside 1..65534, shrinking_factor outside (0, 1), seed_size 0, n_sub_iterations 0, an
// initial_alphabet entry that is not a Unicode scalar value.
void validate(const UnigramTrainerOptions& options);

struct TrainedUnigram {
  // (piece, score) in id order (rule 4), as models/unigram.h's Unigram takes them; a score is a log
  // probability, 0 for the special tokens and unk.
  std::vector<std::pair<std::string, double>> pieces;
  std::optional<uint32_t> unk_id;  // the id of unk_token; none without one

  // What happened, for the summary.
  size_t seed_pieces = 0;    // the seeds EM started from (the placeholder unk not counted)
  size_t em_iterations = 0;  // E+M steps run
  size_t prunings = 0;
  size_t required_chars = 0;  // characters of the words and of initial_alphabet
  uint64_t words = 0;         // total word count (sum of counts)
  uint64_t distinct_words = 0;
};

// Progress of a stage, with HF's stage names: "Suffix array seeds" (done/total: words), then
// "EM training" (done: EM iterations; total: HF's estimate of them, which the run may pass).
using TrainingProgress = std::function<void(std::string_view stage, size_t done, size_t total)>;

class UnigramTrainer {
 public:
  // Validates the options (see validate()).
  explicit UnigramTrainer(UnigramTrainerOptions options);

  // Learns the pieces and their scores. Throws BadInput when `words` is empty and when the required
  // characters, the special tokens and unk do not fit in vocab_size (HF errs when the characters
  // alone do not fit, and silently returns a larger vocabulary when the specials tip it over; we
  // name the numbers). `words` must hold valid UTF-8.
  TrainedUnigram train(const WordCounts& words, const TrainingProgress& progress = {}) const;

  const UnigramTrainerOptions& options() const { return options_; }

 private:
  UnigramTrainerOptions options_;
};

}  // namespace bertpt::tokenizer
