// `bertpt tokenizer train`: count the corpus's words (parallel, bounded memory), learn a WordPiece
// vocabulary exactly as Hugging Face's trainer does (deterministically), and save a BertTokenizerFast
// directory: vocab.txt, tokenizer.json, tokenizer_config.json, special_tokens_map.json, plus
// bertpt_tokenizer_train.json (the effective options and the summary).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/corpus_options.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/progress.h"
#include "text/text_stats.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/trainer.h"
#include "tokenizer/word_counter.h"

namespace bertpt::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct TrainFlags {
  CorpusFlags corpus;
  CommonFlags common;
  std::string out;
  size_t vocab_size = 32000;
  bool lowercase = false, cased = false, strip_accents = false, keep_accents = false;
  bool no_chinese_chars = false;
  uint64_t min_frequency = tokenizer::WordPieceTrainerOptions{}.min_frequency;
  size_t limit_alphabet = 0;  // 0 = no limit
  std::string special_tokens = "[PAD],[UNK],[CLS],[SEP],[MASK]";
  size_t threads = 0;
  size_t max_words = tokenizer::WordCountOptions{}.max_words;
};

std::string with_commas(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::vector<std::string> split_specials(const std::string& list) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  std::string item;
  std::istringstream in(list);
  while (std::getline(in, item, ',')) out.push_back(item);
  if (list.back() == ',') out.push_back("");  // a trailing comma is a mistake; validate() names it
  return out;
}

tokenizer::NormalizerOptions normalizer_options(const TrainFlags& f) {
  tokenizer::NormalizerOptions n;
  n.lowercase = !f.cased;
  if (f.strip_accents) n.strip_accents = true;
  if (f.keep_accents) n.strip_accents = false;
  n.handle_chinese_chars = !f.no_chinese_chars;
  return n;
}

nlohmann::json options_json(const TrainFlags& f, const tokenizer::WordPieceTrainerOptions& t,
                            const tokenizer::NormalizerOptions& n, size_t threads) {
  nlohmann::json j;
  j["inputs"] = f.corpus.inputs;
  j["format"] = f.corpus.format;
  j["doc_per"] = f.corpus.doc_per;
  j["text_field"] = f.corpus.text_field;
  j["vocab_size"] = t.vocab_size;
  j["min_frequency"] = t.min_frequency;
  j["limit_alphabet"] = t.limit_alphabet ? nlohmann::json(*t.limit_alphabet) : nlohmann::json(nullptr);
  j["special_tokens"] = t.special_tokens;
  j["continuing_subword_prefix"] = t.continuing_subword_prefix;
  j["lowercase"] = n.lowercase;
  j["strip_accents"] = n.strip_accents ? nlohmann::json(*n.strip_accents) : nlohmann::json(nullptr);
  j["handle_chinese_chars"] = n.handle_chinese_chars;
  j["clean_text"] = n.clean_text;
  j["threads"] = threads;
  j["max_words"] = f.max_words;
  return j;
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
    std::string line = "tokenizer train: merges " + with_commas(done) + " of at most " + with_commas(total);
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

void run_train(const TrainFlags& f) {
  const auto t0 = Clock::now();
  tokenizer::WordPieceTrainerOptions topt;
  topt.vocab_size = f.vocab_size;
  topt.min_frequency = f.min_frequency;
  if (f.limit_alphabet > 0) topt.limit_alphabet = f.limit_alphabet;
  topt.special_tokens = split_specials(f.special_tokens);
  // Option errors before reading a byte of the corpus.
  tokenizer::WordPieceTrainer trainer(topt);
  const tokenizer::BertSpecialTokens roles;
  for (const std::string* needed : {&roles.unk, &roles.cls, &roles.sep}) {
    if (std::find(topt.special_tokens.begin(), topt.special_tokens.end(), *needed) == topt.special_tokens.end()) {
      throw BadInput("--special-tokens must include " + *needed + " (a BERT tokenizer needs [UNK], [CLS] and [SEP])",
                     "e.g. --special-tokens '[PAD],[UNK],[CLS],[SEP],[MASK]' (the default), plus your own");
    }
  }
  if (f.out.empty()) throw BadInput("--out is required");
  if (std::filesystem::exists(f.out) && !std::filesystem::is_directory(f.out)) {
    throw BadInput("--out " + f.out + " exists and is not a directory");
  }

  tokenizer::WordCountOptions copt;
  copt.normalizer = normalizer_options(f);
  copt.threads = f.threads;
  copt.max_words = f.max_words;
  const text::CorpusOptions corpus = f.corpus.to_options();
  const size_t threads = f.threads > 0 ? f.threads : std::max(1u, std::thread::hardware_concurrency());
  const nlohmann::json options = options_json(f, topt, copt.normalizer, threads);
  if (!f.common.quiet) std::fprintf(stderr, "tokenizer train: %s\n", options.dump().c_str());

  // 1. Count words.
  tokenizer::WordCountResult counted;
  {
    Progress progress("tokenizer train", f.common.quiet);
    counted = tokenizer::count_words(corpus, copt, [&](const tokenizer::CountProgressInfo& p) {
      progress.update(p.disk_bytes_read, p.disk_bytes_total,
                      with_commas(p.words) + " words, " + with_commas(p.documents) + " documents");
    });
    progress.finish("");
  }
  const auto t1 = Clock::now();
  if (counted.words.empty()) {
    throw BadInput("the corpus has no words (" + with_commas(counted.corpus.documents) + " documents, " +
                       with_commas(counted.corpus.bytes) + " bytes)",
                   "check --input, --format and --text-field");
  }

  // 2. Learn the vocabulary.
  tokenizer::TrainedVocabulary vocab;
  {
    MergeLine line(f.common.quiet);
    vocab = trainer.train(counted.words, [&](size_t done, size_t total) { line.update(done, total); });
  }
  const auto t2 = Clock::now();

  // 3. Save.
  tokenizer::save_bert_tokenizer(f.out, vocab.tokens, copt.normalizer, topt.special_tokens, roles);
  const auto t3 = Clock::now();
  auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };

  nlohmann::json summary;
  summary["out"] = f.out;
  summary["vocab_size"] = vocab.tokens.size();
  summary["requested_vocab_size"] = topt.vocab_size;
  summary["special_tokens"] = vocab.special_tokens;
  summary["alphabet"] = vocab.alphabet;
  summary["alphabet_dropped"] = vocab.alphabet_dropped;
  summary["continuation_tokens"] = vocab.continuation_tokens;
  summary["merges"] = vocab.merges;
  summary["merge_tokens"] = vocab.merge_tokens;
  summary["stop_reason"] = vocab.stop_reason;
  summary["words"] = vocab.words;
  summary["distinct_words"] = vocab.distinct_words;
  summary["pruned"] = {{"words", counted.pruned_words},
                       {"occurrences", counted.pruned_occurrences},
                       {"max_count", counted.pruned_max_count},
                       {"rounds", counted.prune_rounds}};
  summary["threads"] = counted.threads;
  summary["seconds"] = seconds(t0, t3);
  summary["seconds_counting"] = seconds(t0, t1);
  summary["seconds_merging"] = seconds(t1, t2);
  summary["seconds_saving"] = seconds(t2, t3);
  summary["corpus"] = text::to_json(counted.corpus);
  summary["sources"] = nlohmann::json::array();
  for (const auto& s : counted.sources) summary["sources"].push_back(text::to_json(s));

  nlohmann::json record = {{"bertpt_version", BERTPT_VERSION}, {"options", options}, {"summary", summary}};
  write_file_atomic(f.out + "/bertpt_tokenizer_train.json", record.dump(2) + "\n");

  if (!f.common.quiet) {
    std::string msg = "tokenizer train: " + with_commas(vocab.tokens.size()) + " tokens (" +
                      with_commas(vocab.alphabet) + " characters, " + with_commas(vocab.merge_tokens) +
                      " merges) from " + with_commas(vocab.words) + " words (" + with_commas(vocab.distinct_words) +
                      " distinct) in " + Progress::format_duration(seconds(t0, t3)) + " -> " + f.out;
    if (vocab.tokens.size() < topt.vocab_size) msg += " (the corpus ran out of pairs before the vocab size)";
    std::fprintf(stderr, "%s\n", msg.c_str());
    if (counted.pruned_words > 0) {
      std::fprintf(stderr, "tokenizer train: pruned %s rare distinct words (%s occurrences, counts <= %s) to stay under --max-words\n",
                   with_commas(counted.pruned_words).c_str(), with_commas(counted.pruned_occurrences).c_str(),
                   with_commas(counted.pruned_max_count).c_str());
    }
  }
  if (f.common.json) print_json(summary);
}

}  // namespace

void add_tokenizer_train_subcommand(CLI::App* tokenizer_cmd) {
  auto f = std::make_shared<TrainFlags>();
  auto* cmd = tokenizer_cmd->add_subcommand(
      "train",
      "Train a BERT WordPiece vocabulary as Hugging Face's WordPieceTrainer does (deterministic) and write a "
      "BertTokenizerFast directory");
  add_corpus_flags(cmd, f->corpus);
  cmd->add_option("-o,--out", f->out, "Output directory (created): vocab.txt, tokenizer.json, ...")->required();
  cmd->add_option("--vocab-size", f->vocab_size, "Vocabulary size, special tokens included")->capture_default_str();
  auto* lc = cmd->add_flag("--lowercase", f->lowercase, "Lowercase the text (default; also strips accents)");
  auto* cs = cmd->add_flag("--cased", f->cased, "Keep case (and accents, unless --strip-accents)");
  lc->excludes(cs);
  auto* sa = cmd->add_flag("--strip-accents", f->strip_accents, "Strip accents (default: when lowercasing)");
  auto* ka = cmd->add_flag("--keep-accents", f->keep_accents, "Keep accents even when lowercasing");
  sa->excludes(ka);
  cmd->add_flag("--no-chinese-chars", f->no_chinese_chars, "Do not split CJK ideographs into words of their own");
  cmd->add_option("--min-frequency", f->min_frequency, "Stop merging when the best pair occurs fewer times")
      ->capture_default_str();
  cmd->add_option("--limit-alphabet", f->limit_alphabet,
                  "Keep only the N most frequent characters (others are dropped from words); 0 = all")
      ->capture_default_str();
  cmd->add_option("--special-tokens", f->special_tokens,
                  "Comma-separated special tokens, ids 0.. in this order; must include [UNK], [CLS], [SEP]")
      ->capture_default_str();
  cmd->add_option("--threads", f->threads, "Word-counting threads; 0 = one per CPU")->capture_default_str();
  cmd->add_option("--max-words", f->max_words,
                  "Keep at most this many distinct words while counting: beyond it the rarest are pruned and "
                  "reported (Hugging Face keeps them all, in memory)")
      ->capture_default_str();
  add_common_flags(cmd, f->common);
  cmd->callback([f] { run_train(*f); });
}

}  // namespace bertpt::cli
