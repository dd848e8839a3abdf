// `bertpt tokenizer train`: flags -> tokenizer::train_from_corpus (count the corpus's words, learn a
// WordPiece, byte-level BPE or Unigram vocabulary as Hugging Face's trainers do, save a directory
// transformers loads)
// -> progress lines and a summary on stderr, or the summary as JSON on stdout.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/corpus_options.h"
#include "cli/normalizer_flags.h"
#include "common/progress.h"
#include "tokenizer/train_from_corpus.h"

namespace bertpt::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct TokenizerTrainFlags {
  CorpusFlags corpus;
  CommonFlags common;
  NormalizerFlags normalizer;
  std::string out;
  std::string model = "wordpiece";
  size_t vocab_size = 32000;
  uint64_t min_frequency = tokenizer::WordPieceTrainerOptions{}.min_frequency;
  size_t limit_alphabet = 0;   // 0 = no limit
  std::string special_tokens;  // "": the family's (tokenizer::default_special_tokens)
  size_t threads = 0;
  size_t max_words = tokenizer::WordCountOptions{}.max_words;
};

std::vector<std::string> split_specials(const std::string& list) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  std::string item;
  std::istringstream in(list);
  while (std::getline(in, item, ',')) out.push_back(item);
  if (list.back() == ',') out.push_back("");  // a trailing comma is a mistake; validate() names it
  return out;
}

// Everything but the corpus options, which are parsed after these are validated (see run_tokenizer_train).
tokenizer::TrainFromCorpusOptions train_options(const TokenizerTrainFlags& f) {
  tokenizer::TrainFromCorpusOptions o;
  o.family = tokenizer::parse_family(f.model);
  o.format_spelling = f.corpus.format;
  o.counting.normalizer = f.normalizer.normalizer_options();
  o.counting.threads = f.threads;
  o.counting.max_words = f.max_words;
  o.trainer.vocab_size = f.vocab_size;
  o.trainer.min_frequency = f.min_frequency;
  if (f.limit_alphabet > 0) o.trainer.limit_alphabet = f.limit_alphabet;
  o.trainer.special_tokens = f.special_tokens.empty() ? tokenizer::default_special_tokens(o.family)
                                                      : split_specials(f.special_tokens);
  o.out = f.out;
  return o;
}

// A progress line on stderr for the merge loop (Progress formats byte counts; merges are not bytes).
class MergeLine {
 public:
  explicit MergeLine(bool quiet) : live_(!quiet && ::isatty(STDERR_FILENO)), start_(Clock::now()) {}
  ~MergeLine() { clear(); }
  void update(size_t done, size_t total) {
    if (!live_) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200) && done < total) return;
    last_ = now;
    const double el = std::chrono::duration<double>(now - start_).count();
    std::string line = "tokenizer train: merges " + Progress::format_count(done) + " of at most " +
                       Progress::format_count(total);
    if (total > 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " (%.1f%%)", 100.0 * double(done) / double(total));
      line += pct;
    }
    if (done > 0 && done < total && el > 0.5) {
      line += ", ETA " + Progress::format_duration(el * double(total - done) / double(done));
    }
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
  void clear() {
    if (drawn_) std::fputs("\r\033[K", stderr);
    drawn_ = false;
  }

 private:
  bool live_;
  bool drawn_ = false;
  Clock::time_point start_, last_;
};

// The live lines of one run: a byte Progress while counting, then a MergeLine while merging. Each
// is cleared when its stage ends (or when this is destroyed, on an error).
class TrainProgressLines {
 public:
  explicit TrainProgressLines(bool quiet) : quiet_(quiet) {}

  tokenizer::TrainFromCorpusProgress callbacks() {
    tokenizer::TrainFromCorpusProgress p;
    p.counting = [this](const tokenizer::CountProgressInfo& i) {
      counting_.update(i.disk_bytes_read, i.disk_bytes_total,
                       Progress::format_count(i.words) + " words, " + Progress::format_count(i.documents) +
                           " documents");
    };
    p.counting_done = [this] {
      counting_.finish("");
      merging_.emplace(quiet_);
    };
    p.merging = [this](size_t done, size_t total) { merging_->update(done, total); };
    p.merging_done = [this] { merging_.reset(); };
    return p;
  }

 private:
  bool quiet_;
  Progress counting_{"tokenizer train", quiet_};
  std::optional<MergeLine> merging_;
};

void print_summary(const tokenizer::TrainFromCorpusResult& r) {
  const tokenizer::TrainedVocabulary& v = r.vocab;
  const std::string learned = r.em_iterations ? Progress::format_count(r.em_iterations) + " EM iterations"
                                              : Progress::format_count(v.merge_tokens) + " merges";
  std::string msg = "tokenizer train: " + Progress::format_count(v.tokens.size()) + " tokens (" +
                    Progress::format_count(v.alphabet) + " characters, " + learned + ") from " +
                    Progress::format_count(v.words) + " words (" + Progress::format_count(v.distinct_words) +
                    " distinct) in " + Progress::format_duration(r.seconds) + " -> " + r.out;
  if (v.tokens.size() < r.requested_vocab_size) msg += " (the corpus ran out of pairs before the vocab size)";
  std::fprintf(stderr, "%s\n", msg.c_str());
  if (r.pruned_words > 0) {
    std::fprintf(stderr,
                 "tokenizer train: pruned %s rare distinct words (%s occurrences, counts <= %s) to stay under "
                 "--max-words\n",
                 Progress::format_count(r.pruned_words).c_str(), Progress::format_count(r.pruned_occurrences).c_str(),
                 Progress::format_count(r.pruned_max_count).c_str());
  }
}

void run_tokenizer_train(const TokenizerTrainFlags& f) {
  tokenizer::TrainFromCorpusOptions options = train_options(f);
  // The trainer's and the output's errors come before the corpus flags' (as they always have).
  tokenizer::validate(options);
  options.corpus = f.corpus.to_options();
  if (!f.common.quiet) std::fprintf(stderr, "tokenizer train: %s\n", tokenizer::to_json(options).dump().c_str());

  tokenizer::TrainFromCorpusResult result;
  {
    TrainProgressLines lines(f.common.quiet);
    result = tokenizer::train_from_corpus(options, lines.callbacks());
  }
  if (!f.common.quiet) print_summary(result);
  if (f.common.json) print_json(tokenizer::to_json(result));
}

}  // namespace

void add_tokenizer_train_subcommand(CLI::App* tokenizer_cmd) {
  auto f = std::make_shared<TokenizerTrainFlags>();
  auto* cmd = tokenizer_cmd->add_subcommand(
      "train",
      "Train a tokenizer as Hugging Face's trainers do (deterministic): a BERT WordPiece vocabulary, a byte-level "
      "BPE (RoBERTa, ModernBERT) or a Unigram (XLM-R), written as a directory transformers loads");
  add_corpus_flags(cmd, f->corpus);
  cmd->add_option("-o,--out", f->out, "Output directory (created): tokenizer.json, tokenizer_config.json, ...")
      ->required();
  cmd->add_option("--model", f->model,
                  "wordpiece (BERT: BertNormalizer, ## continuations), bpe (byte-level BPE with ByteLevel "
                  "pre-tokenizer, as RoBERTa and ModernBERT) or unigram (NFKC + Metaspace, as XLM-R)")
      ->check(CLI::IsMember({"wordpiece", "bpe", "unigram"}))
      ->capture_default_str();
  cmd->add_option("--vocab-size", f->vocab_size, "Vocabulary size, special tokens included")->capture_default_str();
  add_normalizer_flags(cmd, f->normalizer, NormalizerFlagsFor::Training);
  cmd->add_option("--min-frequency", f->min_frequency, "Stop merging when the best pair occurs fewer times")
      ->capture_default_str();
  cmd->add_option("--limit-alphabet", f->limit_alphabet,
                  "Keep only the N most frequent characters (others are dropped from words); 0 = all")
      ->capture_default_str();
  cmd->add_option("--special-tokens", f->special_tokens,
                  "Comma-separated special tokens, ids 0.. in this order (default: [PAD],[UNK],[CLS],[SEP],[MASK] "
                  "for wordpiece, which needs [UNK], [CLS], [SEP]; <s>,<pad>,</s>,<unk>,<mask> for bpe and unigram, "
                  "which need <s> and </s> or [CLS] and [SEP])");
  cmd->add_option("--threads", f->threads, "Word-counting threads; 0 = one per CPU")->capture_default_str();
  cmd->add_option("--max-words", f->max_words,
                  "Keep at most this many distinct words while counting: beyond it the rarest are pruned and "
                  "reported (Hugging Face keeps them all, in memory)")
      ->capture_default_str();
  add_common_flags(cmd, f->common);
  cmd->callback([f] { run_tokenizer_train(*f); });
}

}  // namespace bertpt::cli
