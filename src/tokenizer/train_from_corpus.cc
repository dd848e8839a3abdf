#include "tokenizer/train_from_corpus.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <utility>

#include "common/atomic_file.h"
#include "common/dir_lock.h"
#include "common/error.h"
#include "common/progress.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/pre_tokenizers/byte_level.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::tokenizer {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

nlohmann::json optional_json(const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); }

// Counts the corpus's words; throws BadInput when there are none (nothing to train on).
WordCountResult count_corpus_words(const TrainFromCorpusOptions& options, const TrainFromCorpusProgress& progress) {
  WordCountOptions counting = options.counting;
  if (options.family != TokenizerFamily::WordPiece) {  // the family's own pipeline, as HF's trainers count
    const nlohmann::json normalizer = nlohmann::json::parse(family_normalizer(options.family).dump());
    const nlohmann::json pre_tokenizer = nlohmann::json::parse(family_pre_tokenizer(options.family).dump());
    if (!normalizer.is_null())
      counting.custom_normalizer = read_normalizer(JsonValue(normalizer, "bertpt", "normalizer"));
    counting.pre_tokenizer = read_pre_tokenizer(JsonValue(pre_tokenizer, "bertpt", "pre_tokenizer"));
  }
  WordCountResult counted = count_words(options.corpus, counting, progress.counting);
  if (progress.counting_done) progress.counting_done();
  if (counted.words.empty()) {
    throw BadInput("the corpus has no words (" + Progress::format_count(counted.corpus.documents) + " documents, " +
                       Progress::format_count(counted.corpus.bytes) + " bytes)",
                   "check --input, --format and --text-field");
  }
  return counted;
}

// Copies what the summary reports of the word count (everything but the words themselves).
void record_counting(const WordCountResult& counted, TrainFromCorpusResult& result) {
  result.sources = counted.sources;
  result.corpus = counted.corpus;
  result.pruned_words = counted.pruned_words;
  result.pruned_occurrences = counted.pruned_occurrences;
  result.pruned_max_count = counted.pruned_max_count;
  result.prune_rounds = counted.prune_rounds;
  result.threads = counted.threads;
}

// bertpt_tokenizer_train.json in `dir`.
void write_record(const std::string& dir, const TrainFromCorpusOptions& options, const TrainFromCorpusResult& result) {
  const nlohmann::json record = {
      {"bertpt_version", BERTPT_VERSION}, {"options", to_json(options)}, {"summary", to_json(result)}};
  write_file_atomic(dir + "/bertpt_tokenizer_train.json", record.dump(2) + "\n");
}

// The merge trainer's options for the family: WordPiece's as given; byte-level BPE without the "##"
// prefix and with the 256 characters of the byte map always in its alphabet (HF's
// ByteLevel.alphabet(), as RoBERTa's recipe passes it).
BpeTrainerOptions merge_options(const TrainFromCorpusOptions& options) {
  BpeTrainerOptions o = options.trainer;
  if (options.family == TokenizerFamily::Bpe) {
    o.continuing_subword_prefix.clear();
    for (int b = 0; b < 256; ++b) o.initial_alphabet.push_back(char32_t(ByteLevel::byte_to_char(uint8_t(b))));
  }
  return o;
}

// Learns the family's vocabulary from the counted words and builds its tokenizer.
Tokenizer learn(const TrainFromCorpusOptions& options, const WordCounts& words, const TrainFromCorpusProgress& progress,
                TrainFromCorpusResult& result) {
  const std::vector<std::string>& specials = options.trainer.special_tokens;
  const std::string source = options.out + "/tokenizer.json";
  if (options.family == TokenizerFamily::Unigram) {
    UnigramTrainerOptions o = options.unigram;
    o.vocab_size = options.trainer.vocab_size;
    o.special_tokens = specials;
    o.unk_token = roles_of(specials).unk;
    const TrainedUnigram trained = UnigramTrainer(o).train(words,
                                                           [&](std::string_view stage, size_t done, size_t total) {
                                                             if (progress.merging && stage == "EM training")
                                                               progress.merging(done, total);
                                                           });
    for (const auto& [piece, score] : trained.pieces) result.vocab.tokens.push_back(piece);
    result.vocab.special_tokens = specials.size();
    result.vocab.words = trained.words;
    result.vocab.distinct_words = trained.distinct_words;
    result.vocab.alphabet = trained.required_chars;
    result.vocab.stop_reason = "vocab_size";
    result.em_iterations = trained.em_iterations;
    result.prunings = trained.prunings;
    return unigram_tokenizer(trained, specials, source);
  }
  result.vocab = BpeTrainer(merge_options(options)).train(words, progress.merging);
  if (options.family == TokenizerFamily::Bpe) return bpe_tokenizer(result.vocab, specials, source);
  return Tokenizer::bert(result.vocab.tokens, options.counting.normalizer, specials, BertSpecialTokens{},
                         options.out + "/vocab.txt");
}

// The lock of the output directory, which is replaced as a whole: its lock file lies beside it.
DirLock lock_output(const std::string& out) {
  const std::filesystem::path parent = std::filesystem::path(out).lexically_normal().parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw BadInput("cannot create directory " + parent.string() + ": " + ec.message());
  return DirLock::beside(out);
}

}  // namespace

void validate(const TrainFromCorpusOptions& options) {
  validate(options.trainer);
  const std::vector<std::string>& specials = options.trainer.special_tokens;
  if (options.family != TokenizerFamily::WordPiece) {
    const BertSpecialTokens roles = roles_of(specials);
    if (roles.cls.empty() || roles.sep.empty()) {
      throw BadInput(
          "--special-tokens must include <s> and </s> (or [CLS] and [SEP]): the template puts them around "
          "every sequence",
          "e.g. --special-tokens '<s>,<pad>,</s>,<unk>,<mask>' (the default for bpe and unigram)");
    }
  }
  if (options.out.empty()) throw BadInput("--out is required");
  const BertSpecialTokens roles;
  for (const std::string* needed : {&roles.unk, &roles.cls, &roles.sep}) {
    if (options.family != TokenizerFamily::WordPiece) break;
    if (std::find(specials.begin(), specials.end(), *needed) == specials.end()) {
      throw BadInput("--special-tokens must include " + *needed + " (a BERT tokenizer needs [UNK], [CLS] and [SEP])",
                     "e.g. --special-tokens '[PAD],[UNK],[CLS],[SEP],[MASK]' (the default), plus your own");
    }
  }
  if (options.out.empty()) throw BadInput("--out is required");
  if (std::filesystem::exists(options.out) && !std::filesystem::is_directory(options.out)) {
    throw BadInput("--out " + options.out + " exists and is not a directory");
  }
}

size_t counting_threads(const TrainFromCorpusOptions& options) {
  if (options.counting.threads > 0) return options.counting.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

nlohmann::json to_json(const TrainFromCorpusOptions& options) {
  const WordPieceTrainerOptions& t = options.trainer;
  const NormalizerOptions& n = options.counting.normalizer;
  nlohmann::json j;
  j["model"] = family_name(options.family);
  j["inputs"] = options.corpus.inputs;
  j["format"] = options.format_spelling.empty() ? text::format_name(options.corpus.format) : options.format_spelling;
  j["doc_per"] = text::doc_per_name(options.corpus.doc_per);
  j["text_field"] = options.corpus.text_field;
  j["vocab_size"] = t.vocab_size;
  j["min_frequency"] = t.min_frequency;
  j["limit_alphabet"] = optional_json(t.limit_alphabet);
  j["special_tokens"] = t.special_tokens;
  if (options.family == TokenizerFamily::WordPiece) {
    j["continuing_subword_prefix"] = t.continuing_subword_prefix;
    j["lowercase"] = n.lowercase;
    j["strip_accents"] = optional_json(n.strip_accents);
    j["handle_chinese_chars"] = n.handle_chinese_chars;
    j["clean_text"] = n.clean_text;
  } else {  // the family's fixed pipeline, as tokenizer.json writes it
    j["normalizer"] = nlohmann::json::parse(family_normalizer(options.family).dump());
    j["pre_tokenizer"] = nlohmann::json::parse(family_pre_tokenizer(options.family).dump());
  }
  j["threads"] = counting_threads(options);
  j["max_words"] = options.counting.max_words;
  return j;
}

nlohmann::json to_json(const TrainFromCorpusResult& r) {
  const TrainedVocabulary& v = r.vocab;
  nlohmann::json j;
  j["out"] = r.out;
  j["vocab_size"] = v.tokens.size();
  j["requested_vocab_size"] = r.requested_vocab_size;
  j["special_tokens"] = v.special_tokens;
  j["alphabet"] = v.alphabet;
  j["alphabet_dropped"] = v.alphabet_dropped;
  j["continuation_tokens"] = v.continuation_tokens;
  j["merges"] = v.merges;
  j["merge_tokens"] = v.merge_tokens;
  j["stop_reason"] = v.stop_reason;
  j["words"] = v.words;
  j["distinct_words"] = v.distinct_words;
  j["pruned"] = {{"words", r.pruned_words},
                 {"occurrences", r.pruned_occurrences},
                 {"max_count", r.pruned_max_count},
                 {"rounds", r.prune_rounds}};
  if (r.em_iterations) {
    j["em_iterations"] = r.em_iterations;
    j["prunings"] = r.prunings;
  }
  j["threads"] = r.threads;
  j["seconds"] = r.seconds;
  j["seconds_counting"] = r.seconds_counting;
  j["seconds_merging"] = r.seconds_merging;
  j["seconds_saving"] = r.seconds_saving;
  j["corpus"] = text::to_json(r.corpus);
  j["sources"] = nlohmann::json::array();
  for (const text::SourceStats& s : r.sources) j["sources"].push_back(text::to_json(s));
  return j;
}

TrainFromCorpusResult train_from_corpus(const TrainFromCorpusOptions& options,
                                        const TrainFromCorpusProgress& progress) {
  const auto start = Clock::now();
  validate(options);                              // option errors before reading a byte of the corpus
  const DirLock lock = lock_output(options.out);  // a second run into the same --out fails here
  TrainFromCorpusResult result;
  result.out = options.out;
  result.requested_vocab_size = options.trainer.vocab_size;

  // 1. Count words.
  std::optional<Tokenizer> tok;
  {
    WordCountResult counted = count_corpus_words(options, progress);
    record_counting(counted, result);
    const auto counted_at = Clock::now();
    result.seconds_counting = seconds_between(start, counted_at);

    // 2. Learn the vocabulary (the word table is freed when it is done).
    tok = learn(options, counted.words, progress, result);
    if (progress.merging_done) progress.merging_done();
    result.seconds_merging = seconds_between(counted_at, Clock::now());
  }

  // 3. Save: the tokenizer files and the record, as one set (a killed run leaves the old directory).
  const auto saving_at = Clock::now();
  save_tokenizer(*tok, options.out, 512, [&](const std::string& tmp_dir) {
    const auto saved_at = Clock::now();
    result.seconds_saving = seconds_between(saving_at, saved_at);
    result.seconds = seconds_between(start, saved_at);
    write_record(tmp_dir, options, result);
  });
  return result;
}

}  // namespace bertpt::tokenizer
