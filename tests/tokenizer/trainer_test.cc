// WordPieceTrainer: exact small cases derived by hand from the rules in trainer.h, option handling,
// and the merge loop against Hugging Face's own trainers (tests/peer/hf_train.py).
#include "tokenizer/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/error.h"
#include "peer.h"

namespace bertpt::tokenizer {
namespace {

using Tokens = std::vector<std::string>;

WordCounts counts_of(std::initializer_list<std::pair<const char*, uint64_t>> items) {
  WordCounts wc;
  for (const auto& [w, c] : items) wc.add(w, c);
  return wc;
}

WordPieceTrainerOptions no_specials(size_t vocab_size = 1000) {
  WordPieceTrainerOptions o;
  o.vocab_size = vocab_size;
  o.special_tokens.clear();
  return o;
}

Tokens train(const WordPieceTrainerOptions& o, const WordCounts& wc) { return WordPieceTrainer(o).train(wc).tokens; }

// abc x2, bc, ca. Alphabet a b c (ids 0-2); every char also occurs non-initially, c in two words
// (abc, bc), a and b in one: ##c ##a ##b (3-5).
// Pairs: (a,##b)=2 (##b,##c)=2 (b,##c)=1 (c,##a)=1. The tie at 2 goes to the smaller left id: "ab".
// That leaves (ab,##c)=2 -> "abc"; (##b,##c) is now 0. Then the tie at 1: (b,##c) "bc" before
// (c,##a) "ca". The stale (##b,##c) entry pops with count 0: stop.
TEST(WordPieceTrainer, TinyCorpusExactVocabulary) {
  TrainedVocabulary v = WordPieceTrainer(no_specials()).train(counts_of({{"abc", 2}, {"bc", 1}, {"ca", 1}}));
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "c", "##c", "##a", "##b", "ab", "abc", "bc", "ca"}));
  EXPECT_EQ(v.alphabet, 3u);
  EXPECT_EQ(v.continuation_tokens, 3u);
  EXPECT_EQ(v.merges, 4u);
  EXPECT_EQ(v.merge_tokens, 4u);
  EXPECT_EQ(v.words, 4u);
  EXPECT_EQ(v.distinct_words, 3u);
  EXPECT_EQ(v.stop_reason, "no_pairs");
}

// cab x2, dab x2: (##a,##b)=4 wins -> "##ab" (both prefixes: right's "##" is dropped, left's kept).
// Then (c,##ab)=2 and (d,##ab)=2 tie: c (id 2) before d (id 3).
TEST(WordPieceTrainer, ContinuationPiecesMergeKeepingOnePrefix) {
  TrainedVocabulary v = WordPieceTrainer(no_specials()).train(counts_of({{"cab", 2}, {"dab", 2}}));
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "c", "d", "##a", "##b", "##ab", "cab", "dab"}));
}

// Specials take ids 0.. in the given order; the vocabulary size counts them.
TEST(WordPieceTrainer, SpecialsFirstAndVocabSizeStopsBeforeAMerge) {
  WordPieceTrainerOptions o;
  o.special_tokens = {"[PAD]", "[UNK]"};
  o.vocab_size = 2 + 3 + 3 + 2;  // two merges
  TrainedVocabulary v = WordPieceTrainer(o).train(counts_of({{"abc", 2}, {"bc", 1}, {"ca", 1}}));
  EXPECT_EQ(v.tokens, (Tokens{"[PAD]", "[UNK]", "a", "b", "c", "##c", "##a", "##b", "ab", "abc"}));
  EXPECT_EQ(v.stop_reason, "vocab_size");
}

// Code-point order for the alphabet, and for "##" forms found in as many words, whatever the word
// order or counts. "é" (U+00E9) sorts after "z"; "ü" only occurs initially, so it gets no "##" form.
TEST(WordPieceTrainer, AlphabetAndPrefixFormsInCodePointOrder) {
  TrainedVocabulary v = WordPieceTrainer(no_specials(8)).train(counts_of({{"zé", 5}, {"üa", 1}}));
  EXPECT_EQ(v.tokens, (Tokens{"a", "z", "\xC3\xA9", "\xC3\xBC", "##a", "##\xC3\xA9", "z\xC3\xA9",
                              "\xC3\xBC"
                              "a"}));
}

// BPE without a prefix (HF's BpeTrainer defaults): "aaaa" -> a a a a, (a,a)=3. Merging left to right
// gives aa aa: (a,a) loses the middle occurrence (3-1=2; HF never decrements the merged pair
// itself), (aa,a) gains then loses one (0, not queued), (aa,aa)=1 -> "aaaa". The stale (a,a) entry
// is gone (it was the one merged), so the heap is empty.
TEST(WordPieceTrainer, OverlappingPairsMergeLeftToRight) {
  WordPieceTrainerOptions o = no_specials();
  o.continuing_subword_prefix = "";
  EXPECT_EQ(train(o, counts_of({{"aaaa", 1}})), (Tokens{"a", "aa", "aaaa"}));
  EXPECT_EQ(train(o, counts_of({{"aaa", 1}})), (Tokens{"a", "aa", "aaa"}));
}

TEST(WordPieceTrainer, MinFrequencyStopsAtTheFirstRarePair) {
  WordPieceTrainerOptions o = no_specials();
  o.min_frequency = 2;
  TrainedVocabulary v = WordPieceTrainer(o).train(counts_of({{"abc", 2}, {"bc", 1}, {"ca", 1}}));
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "c", "##c", "##a", "##b", "ab", "abc"}));
  EXPECT_EQ(v.stop_reason, "min_frequency");
}

// limit_alphabet keeps the most frequent characters; a dropped character is skipped inside words
// (and a word whose first character was dropped starts with a "##" piece).
TEST(WordPieceTrainer, LimitAlphabetKeepsTheMostFrequent) {
  WordPieceTrainerOptions o = no_specials();
  o.limit_alphabet = 2;
  // counts: a 3+1=4, b 3+1=4, x 1 -> x dropped. "xab" becomes ##a ##b. b follows a first character
  // in two words, a in one: ##b before ##a.
  TrainedVocabulary v = WordPieceTrainer(o).train(counts_of({{"ab", 3}, {"xab", 1}}));
  EXPECT_EQ(v.alphabet_dropped, 1u);
  EXPECT_EQ(v.tokens, (Tokens{"a", "b", "##b", "##a", "ab", "##ab"}));
  // Ties at the cut: the smaller code point survives.
  o.limit_alphabet = 1;
  TrainedVocabulary t = WordPieceTrainer(o).train(counts_of({{"ba", 1}}));
  EXPECT_EQ(t.tokens, (Tokens{"a", "##a"}));
}

// A merge whose string already exists keeps that id and adds nothing (here the string is a special
// token; it can also be an earlier merge spelled differently, e.g. "ab"+"##c" and "a"+"##bc").
// The merge still happens in the words: "ab" then pairs with "##c".
TEST(WordPieceTrainer, ExistingStringKeepsItsId) {
  WordPieceTrainerOptions o = no_specials();
  o.special_tokens = {"ab"};
  TrainedVocabulary v = WordPieceTrainer(o).train(counts_of({{"ab", 3}, {"abc", 1}}));
  EXPECT_EQ(v.tokens, (Tokens{"ab", "a", "b", "c", "##b", "##c", "abc"}));
  EXPECT_EQ(v.merges, 2u);
  EXPECT_EQ(v.merge_tokens, 1u);
}

// HF looks characters up in the vocabulary: a character dropped by limit_alphabet that is also a
// special token stays in words as that token (and gets its "##" form).
TEST(WordPieceTrainer, DroppedCharacterThatIsASpecialTokenStays) {
  WordPieceTrainerOptions o = no_specials();
  o.special_tokens = {"b"};
  o.limit_alphabet = 1;  // a (4) stays, b (2) is dropped
  TrainedVocabulary v = WordPieceTrainer(o).train(counts_of({{"aab", 2}}));
  EXPECT_EQ(v.tokens, (Tokens{"b", "a", "##a", "##b", "aa", "aab"}));
}

TEST(WordPieceTrainer, BadOptionsAreClearErrors) {
  WordPieceTrainerOptions o;
  o.special_tokens = {"[PAD]", "[UNK]", "[PAD]"};
  try {
    WordPieceTrainer t(o);
    FAIL() << "duplicate special tokens accepted";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("'[PAD]' is given twice"), std::string::npos) << e.what();
  }
  o.special_tokens = {"[PAD]", ""};
  EXPECT_THROW(WordPieceTrainer{o}, BadInput);
  o = WordPieceTrainerOptions{};
  o.vocab_size = 0;
  EXPECT_THROW(WordPieceTrainer{o}, BadInput);
}

TEST(WordPieceTrainer, EmptyCorpusIsAnError) {
  EXPECT_THROW(WordPieceTrainer(WordPieceTrainerOptions{}).train(WordCounts{}), BadInput);
}

// HF would return all 5 + 3 + 3 initial tokens for vocab_size 8; we refuse and say the numbers.
TEST(WordPieceTrainer, VocabSmallerThanInitialVocabularyIsAnError) {
  WordPieceTrainerOptions o;
  o.vocab_size = 8;
  try {
    WordPieceTrainer(o).train(counts_of({{"abc", 2}, {"ca", 1}}));
    FAIL() << "vocab size below the initial vocabulary accepted";
  } catch (const BadInput& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("vocab size 8 is smaller than the initial vocabulary of 11 tokens"), std::string::npos) << m;
    EXPECT_NE(m.find("5 special + 3 alphabet characters + 3 '##' forms"), std::string::npos) << m;
    EXPECT_NE(e.hint().find("--vocab-size 11"), std::string::npos) << e.hint();
  }
  o.vocab_size = 11;  // exactly the initial vocabulary: fine, no merges
  TrainedVocabulary v = WordPieceTrainer(o).train(counts_of({{"abc", 2}, {"ca", 1}}));
  EXPECT_EQ(v.tokens.size(), 11u);
  EXPECT_EQ(v.merges, 0u);
}

// The "##" forms are numbered as HF numbers them in nearly every run: HF meets them while it splits
// the words in hash-map order, so a character found after the first character of many words comes
// early. Here every word has я right after its first character: in every HF run "##я" is the first
// "##" form (the others move between runs; checked with tokenizers 0.23.3, 40 runs). So the tie at 3
// between (##я,##ю) and (##a,##b) always goes to "##яю" in HF. Numbered by code point (the old
// rule: ##a < ##b < ##я), it went to "##ab" instead, and with one merge the vocabularies differed.
// Ours: ##я (6 words), then 3 words each by code point: ##a ##b ##ю, then 1 word each: ##f ##g ##h.
TEST(WordPieceTrainer, PrefixFormsNumberedByHowManyWordsHaveThem) {
  const WordCounts words = counts_of({{"бяю", 1}, {"вяю", 1}, {"гяю", 1}, {"дяfab", 1}, {"еяgab", 1}, {"жяhab", 1}});
  const Tokens initial{"a", "b", "f", "g",   "h",   "б",   "в",   "г",   "д",   "е",
                       "ж", "ю", "я", "##я", "##a", "##b", "##ю", "##f", "##g", "##h"};
  Tokens one_merge = initial;
  one_merge.push_back("##яю");
  EXPECT_EQ(train(no_specials(21), words), one_merge);  // HF: "##яю"; code-point order: "##ab"
  Tokens two_merges = one_merge;
  two_merges.push_back("##ab");
  EXPECT_EQ(train(no_specials(22), words), two_merges);
}

// The result depends only on the counts, not on the order they were added in.
TEST(WordPieceTrainer, IndependentOfInsertionOrder) {
  std::vector<std::pair<std::string, uint64_t>> items;
  const char* base[] = {"the",   "then",    "there",     "these", "other", "mother", "brother", "bother", "thin",
                        "thing", "nothing", "something", "eth",   "hen",   "ten",    "net",     "tent",   "often"};
  uint64_t c = 1;
  for (const char* w : base) items.emplace_back(w, (c++ * 7) % 5 + 1);
  WordCounts forward, backward;
  for (const auto& [w, n] : items) forward.add(w, n);
  for (auto it = items.rbegin(); it != items.rend(); ++it) backward.add(it->first, it->second);
  EXPECT_EQ(train(no_specials(), forward), train(no_specials(), backward));
}

// ---- `bertpt tokenizer train` ----

testing::CommandResult train_cli(const testing::TempDir& dir, const std::string& corpus_text, const std::string& args) {
  testing::write_file(dir.file("corpus.txt"), corpus_text);
  return testing::run_bertpt("tokenizer train --quiet --input " + testing::shell_quote(dir.file("corpus.txt")) +
                             " --out " + testing::shell_quote(dir.file("out")) + " " + args);
}

// The tiny corpus of TinyCorpusExactVocabulary, through the whole command: uppercase and an accent
// are normalized away (bert-base-uncased pipeline), specials first.
TEST(TokenizerTrainCommand, TinyCorpusExactFiles) {
  testing::TempDir dir;
  testing::CommandResult r = train_cli(dir, "ABC abc\nBC\n\nc\xC3\xA1\n", "--vocab-size 100 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::slurp(dir.file("out/vocab.txt")),
            "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\nc\n##c\n##a\n##b\nab\nabc\nbc\nca\n");
  for (const char* f :
       {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "bertpt_tokenizer_train.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.file(std::string("out/") + f))) << f;
  }
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["vocab_size"], 15);
  EXPECT_EQ(j["requested_vocab_size"], 100);
  EXPECT_EQ(j["words"], 4);
  EXPECT_EQ(j["distinct_words"], 3);
  EXPECT_EQ(j["alphabet"], 3);
  EXPECT_EQ(j["merges"], 4);
  EXPECT_EQ(j["stop_reason"], "no_pairs");
  EXPECT_EQ(j["corpus"]["documents"], 3);
  EXPECT_EQ(j["pruned"]["words"], 0);
}

// --cased keeps case and accents; --special-tokens sets ids 0..
TEST(TokenizerTrainCommand, CasedAndCustomSpecials) {
  testing::TempDir dir;
  testing::CommandResult r = train_cli(dir, "Ab Ab\n",
                                       "--cased --special-tokens '[UNK],[CLS],[SEP],<x>' --vocab-size 9");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::slurp(dir.file("out/vocab.txt")), "[UNK]\n[CLS]\n[SEP]\n<x>\nA\nb\n##b\nAb\n");
}

TEST(TokenizerTrainCommand, ClearErrors) {
  testing::TempDir dir;
  struct Case {
    std::string corpus, args, message;
  } cases[] = {
      {" \n\n", "", "holds no documents"},
      {"\xE2\x80\x8B\n", "", "the corpus has no words"},  // a zero-width space only: deleted by clean_text
      {"abc\n", "--special-tokens '[PAD],[UNK],[CLS],[SEP],[UNK]'", "'[UNK]' is given twice"},
      {"abc\n", "--special-tokens '[PAD],[CLS],[SEP]'", "must include [UNK]"},
      {"abc ca\n", "--vocab-size 8", "vocab size 8 is smaller than the initial vocabulary of 11 tokens"},
      {"abc\n", "--max-words 0", "--max-words"},
  };
  for (const Case& c : cases) {
    testing::CommandResult r = train_cli(dir, c.corpus, c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out/vocab.txt"))) << c.args;
  }
}

// Same bytes for every thread count, including when pruning kicks in.
TEST(TokenizerTrainCommand, DeterministicAcrossThreadCounts) {
  testing::TempDir dir;
  std::string text;
  uint64_t x = 12345;
  const char* syll[] = {"ka", "ro", "mi", "tse", "lu", "pan", "do", "\xC3\xA9", "\xE4\xB8\xAD", "qu", "x", "ing"};
  for (int line = 0; line < 20000; ++line) {
    for (int w = 0; w < 8; ++w) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const int n = 1 + int((x >> 60) % 4);
      for (int k = 0; k < n; ++k) text += syll[(x >> (8 * k + 8)) % 12];
      text += (x >> 40) % 7 == 0 ? ", " : " ";
    }
    text += "\n";
  }
  testing::write_file(dir.file("corpus.txt"), text);
  std::map<std::string, std::string> reference;  // per --max-words: the first run's bytes
  for (const char* threads : {"1", "2", "5"}) {
    for (const char* max_words : {"20000000", "3000"}) {
      const std::string out = dir.file(std::string("out_") + threads + "_" + max_words);
      testing::CommandResult r = testing::run_bertpt("tokenizer train --quiet --json --vocab-size 2000 --threads " +
                                                     std::string(threads) + " --max-words " + max_words + " --input " +
                                                     testing::shell_quote(dir.file("corpus.txt")) + " --out " + out);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const nlohmann::json j = nlohmann::json::parse(r.out);
      if (std::string(max_words) == "3000") {
        EXPECT_GT(j["pruned"]["words"].get<uint64_t>(), 0u);
        EXPECT_LE(j["distinct_words"].get<uint64_t>(), 3000u);
      }
      const std::string vocab = testing::slurp(out + "/vocab.txt") + testing::slurp(out + "/tokenizer.json");
      const std::string key = std::string(max_words);
      if (!reference.count(key)) reference[key] = vocab;
      EXPECT_EQ(vocab, reference[key]) << "--threads " << threads << " --max-words " << max_words;
    }
  }
}

// ---- Against Hugging Face's trainers (Python tokenizers, requirements/hf-peer.txt). ----

// A small real corpus from packages scripts/setup installs: Python docs (English technical prose)
// and fortunes (several languages when the fortunes-* packages are present). About `max_bytes`.
std::string build_peer_corpus(const std::string& path, size_t max_bytes) {
  namespace fs = std::filesystem;
  std::vector<std::string> docs, fortunes;
  const std::string docs_dir = "/usr/share/doc/python3.11/html/_sources";
  const std::string fortune_dir = "/usr/share/games/fortunes";
  if (fs::exists(docs_dir)) {
    for (const auto& e : fs::recursive_directory_iterator(docs_dir)) {
      if (e.is_regular_file() && e.path().extension() == ".txt") docs.push_back(e.path().string());
    }
  }
  if (fs::exists(fortune_dir)) {
    for (const auto& e : fs::recursive_directory_iterator(fortune_dir)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && !e.is_symlink() && ext != ".dat" && ext != ".u8")
        fortunes.push_back(e.path().string());
    }
  }
  std::sort(docs.begin(), docs.end());
  std::sort(fortunes.begin(), fortunes.end());
  if (docs.empty() || fortunes.empty()) return {};
  // Half docs, half fortunes, whole files, in sorted order; skip files that are not valid UTF-8
  // (HF's trainer would abort on them).
  std::string corpus;
  auto take = [&](const std::vector<std::string>& files, size_t budget) {
    size_t used = 0;
    for (const std::string& f : files) {
      std::string content = testing::slurp(f);
      std::string scratch;
      if (used + content.size() > budget) continue;
      bool valid = true;
      for (size_t i = 0; i < content.size();) {
        const unsigned char b = content[i];
        size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > content.size()) {
          valid = false;
          break;
        }
        for (size_t k = 1; k < n; ++k)
          if ((static_cast<unsigned char>(content[i + k]) >> 6) != 2) valid = false;
        if (!valid) break;
        i += n;
      }
      if (!valid || content.find('\0') != std::string::npos) continue;
      corpus += content;
      if (corpus.back() != '\n') corpus += '\n';
      used += content.size();
    }
  };
  take(docs, max_bytes / 2);
  take(fortunes, max_bytes / 2);
  testing::write_file(path, corpus);
  return path;
}

Tokens read_lines(const std::string& path) {
  Tokens lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Word counts from a words file (words separated by single spaces, as hf_train.py writes them).
WordCounts count_words_file(const std::string& path) {
  WordCounts wc;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t i = 0;
    while (i < line.size()) {
      size_t j = line.find(' ', i);
      if (j == std::string::npos) j = line.size();
      if (j > i) wc.add(std::string_view(line).substr(i, j - i));
      i = j + 1;
    }
  }
  return wc;
}

double share_of_first_in_second(const Tokens& first, const Tokens& second) {
  std::unordered_set<std::string> s(second.begin(), second.end());
  size_t n = 0;
  for (const std::string& t : first) n += s.count(t);
  return first.empty() ? 0.0 : static_cast<double>(n) / first.size();
}

// Everything HF-side is computed once for the suite (about 10 s): an 8 MB corpus (smaller ones
// train into count-1 pairs, where tie-breaks dominate and even two HF runs differ by several %),
// HF's word stream for it, and HF's BPE and WordPiece vocabularies trained on that stream.
class TrainerPeer : public ::testing::Test {
 protected:
  struct Shared {
    testing::TempDir dir;
    std::string corpus;
    WordCounts words;
    Tokens hf_bpe, hf_wordpiece;
    std::string skip;  // why the suite skips, if it does
  };
  static Shared* shared_;

  static void SetUpTestSuite() {
    shared_ = new Shared;
    Shared& s = *shared_;
    if (!testing::peer_installed()) {
      s.skip = "HF tokenizers peer not available: " + testing::peer_problem();
      return;
    }
    s.corpus = build_peer_corpus(s.dir.file("corpus.txt"), 8'000'000);
    if (s.corpus.empty()) {
      s.skip = "python3.11-doc or fortunes not installed; run scripts/setup";
      return;
    }
    // HF's own word stream (its normalizer and pre-tokenizer), so the merge loop is compared alone.
    const std::string words = s.dir.file("words.txt");
    testing::run_peer("hf_train.py words lowercase " + testing::shell_quote(words) + " " +
                      testing::shell_quote(s.corpus));
    s.words = count_words_file(words);
    for (const char* model : {"bpe", "wordpiece"}) {
      const std::string out = s.dir.file(std::string("hf_") + model + ".txt");
      testing::run_peer(std::string("hf_train.py train ") + model + " words " + testing::shell_quote(out) + " " +
                        testing::shell_quote(words));
      (std::string(model) == "bpe" ? s.hf_bpe : s.hf_wordpiece) = read_lines(out);
    }
  }
  static void TearDownTestSuite() {
    delete shared_;
    shared_ = nullptr;
  }
  void SetUp() override {
    if (!shared_->skip.empty()) BERTPT_SKIP_UNLESS_CI(shared_->skip);
    ASSERT_GT(shared_->words.size(), 50000u);
    ASSERT_EQ(shared_->hf_wordpiece.size(), 30000u);
  }
};
TrainerPeer::Shared* TrainerPeer::shared_ = nullptr;

// HF's BpeTrainer (no prefix) is deterministic: every id must match, which pins the whole merge
// loop (heap order, stale entries, per-entry word lists, re-created tokens) to HF's.
TEST_F(TrainerPeer, PlainBpeIsIdenticalToHuggingFace) {
  const Tokens& hf = shared_->hf_bpe;
  WordPieceTrainerOptions o = no_specials(30000);
  o.continuing_subword_prefix = "";
  const Tokens ours = train(o, shared_->words);
  ASSERT_EQ(ours.size(), hf.size());
  size_t first_difference = ours.size();
  for (size_t i = 0; i < ours.size(); ++i) {
    if (ours[i] != hf[i]) {
      first_difference = i;
      break;
    }
  }
  EXPECT_EQ(first_difference, ours.size())
      << "id " << first_difference << ": ours '" << ours[first_difference] << "', HF '" << hf[first_difference] << "'";
}

// HF's WordPieceTrainer: its "##" ids follow hash-map order, so its runs differ slightly; we must
// hold at least 99.9% of its tokens.
TEST_F(TrainerPeer, WordPieceSharesAtLeast999PerMilleWithHuggingFace) {
  const Tokens ours = train(no_specials(30000), shared_->words);
  ASSERT_EQ(ours.size(), shared_->hf_wordpiece.size());
  const double share = share_of_first_in_second(shared_->hf_wordpiece, ours);
  EXPECT_GE(share, 0.999) << "only " << share * 100 << "% of HF's tokens are in ours";
}

// End to end: `bertpt tokenizer train` on the raw corpus (our corpus reader, normalizer and
// pre-tokenizer, parallel counting) against HF's vocabulary. With the 5 default specials and vocab
// 30,005 both learn 30,000 tokens.
TEST_F(TrainerPeer, CommandLineSharesAtLeast999PerMilleWithHuggingFace) {
  const std::string out = shared_->dir.file("bertpt_out");
  testing::CommandResult r = testing::run_bertpt("tokenizer train --quiet --threads 2 --vocab-size 30005 --input " +
                                                 testing::shell_quote(shared_->corpus) + " --out " +
                                                 testing::shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Tokens ours = read_lines(out + "/vocab.txt");
  ASSERT_EQ(ours.size(), 30005u);
  EXPECT_EQ(Tokens(ours.begin(), ours.begin() + 5), (Tokens{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}));
  ours.erase(ours.begin(), ours.begin() + 5);
  const double share = share_of_first_in_second(shared_->hf_wordpiece, ours);
  EXPECT_GE(share, 0.999) << "only " << share * 100 << "% of HF's tokens are in ours";
  // And the same vocabulary as training on HF's own word stream: our pipeline counts the same words.
  EXPECT_EQ(ours, train(no_specials(30000), shared_->words));
}

}  // namespace
}  // namespace bertpt::tokenizer
