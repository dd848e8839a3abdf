// train_from_corpus called directly: a tiny corpus whose vocabulary is known exactly (the one of
// TokenizerTrainCommand.TinyCorpusExactFiles in trainer_test.cc), the files it writes loaded back with
// load_tokenizer, the progress callbacks' order, and the errors that come before any reading.
#include "tokenizer/train_from_corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/test_util.h"
#include "tokenizer/hf_files.h"

namespace bertpt::tokenizer {
namespace {

using Tokens = std::vector<std::string>;

TrainFromCorpusOptions options_for(const testing::TempDir& dir, const std::string& corpus_text) {
  testing::write_file(dir.file("corpus.txt"), corpus_text);
  TrainFromCorpusOptions o;
  o.corpus.inputs = {dir.file("corpus.txt")};
  o.counting.threads = 2;
  o.trainer.vocab_size = 100;
  o.out = dir.file("out");
  return o;
}

// "ABC abc / BC / (blank) / cá", lowercased with accents stripped: abc x2, bc, ca.
constexpr const char* kTinyCorpus = "ABC abc\nBC\n\nc\xC3\xA1\n";
const Tokens kTinyVocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a",  "b", "c",
                           "##c",   "##a",   "##b",   "ab",    "abc",    "bc", "ca"};

TEST(TrainFromCorpus, TinyCorpusExactVocabularyAndSummary) {
  testing::TempDir dir;
  const TrainFromCorpusResult r = train_from_corpus(options_for(dir, kTinyCorpus));
  EXPECT_EQ(r.vocab.tokens, kTinyVocab);
  EXPECT_EQ(r.vocab.special_tokens, 5u);
  EXPECT_EQ(r.vocab.alphabet, 3u);
  EXPECT_EQ(r.vocab.continuation_tokens, 3u);
  EXPECT_EQ(r.vocab.merges, 4u);
  EXPECT_EQ(r.vocab.stop_reason, "no_pairs");
  EXPECT_EQ(r.vocab.words, 4u);
  EXPECT_EQ(r.vocab.distinct_words, 3u);
  EXPECT_EQ(r.requested_vocab_size, 100u);
  EXPECT_EQ(r.corpus.documents, 3u);
  EXPECT_EQ(r.corpus.empty_skipped, 1u);
  ASSERT_EQ(r.sources.size(), 1u);
  EXPECT_EQ(r.pruned_words, 0u);
  EXPECT_EQ(r.threads, 2u);
  EXPECT_GE(r.seconds, r.seconds_counting + r.seconds_merging + r.seconds_saving - 1e-6);
}

// The directory loads with the loader encode/decode use, and the record holds the options and the
// summary the function returned.
TEST(TrainFromCorpus, WrittenFilesLoadBack) {
  testing::TempDir dir;
  const TrainFromCorpusOptions o = options_for(dir, kTinyCorpus);
  const TrainFromCorpusResult r = train_from_corpus(o);

  for (const std::string& path : {dir.file("out"), dir.file("out/vocab.txt"), dir.file("out/tokenizer.json")}) {
    const Tokenizer tok = load_tokenizer(path);
    EXPECT_EQ(tok.vocab_size(), kTinyVocab.size()) << path;
    for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
      EXPECT_TRUE(tok.token_to_id(special).has_value()) << path << " " << special;
    }
    std::vector<uint32_t> ids;
    tok.encode("ABC Cba x", ids);  // [CLS] abc c ##b ##a [UNK] [SEP]: x is not in the vocabulary
    EXPECT_EQ(ids, (std::vector<uint32_t>{2, 12, 7, 10, 9, 1, 3})) << path;
  }
  EXPECT_EQ(read_vocab_txt(dir.file("out/vocab.txt")), kTinyVocab);

  const nlohmann::json record = nlohmann::json::parse(testing::slurp(dir.file("out/bertpt_tokenizer_train.json")));
  EXPECT_EQ(record["options"], to_json(o));
  EXPECT_EQ(record["summary"], to_json(r));
  EXPECT_EQ(record["summary"]["vocab_size"], kTinyVocab.size());
  EXPECT_EQ(record["options"]["format"], "auto");
  EXPECT_EQ(record["options"]["threads"], 2);
}

TEST(TrainFromCorpus, ProgressStagesInOrder) {
  testing::TempDir dir;
  std::vector<std::string> events;
  TrainFromCorpusProgress p;
  p.counting = [&](const CountProgressInfo& i) { events.push_back("counting " + std::to_string(i.words)); };
  p.counting_done = [&] { events.push_back("counting_done"); };
  p.merging = [&](size_t done, size_t total) {
    events.push_back("merging " + std::to_string(done) + "/" + std::to_string(total));
  };
  p.merging_done = [&] { events.push_back("merging_done"); };
  train_from_corpus(options_for(dir, kTinyCorpus), p);
  // One batch (the corpus is smaller than a batch): the final count only. 100 - 11 initial tokens
  // leave room for 89 merges; 4 were made.
  EXPECT_EQ(events, (std::vector<std::string>{"counting 4", "counting_done", "merging 4/89", "merging_done"}));
}

TEST(TrainFromCorpus, PrunesToMaxWordsAndReportsIt) {
  testing::TempDir dir;
  TrainFromCorpusOptions o = options_for(dir, "aa aa aa bb bb cc\n");
  o.counting.max_words = 2;
  const TrainFromCorpusResult r = train_from_corpus(o);
  EXPECT_EQ(r.pruned_words, 1u);  // cc, the rarest
  EXPECT_EQ(r.pruned_occurrences, 1u);
  EXPECT_EQ(r.pruned_max_count, 1u);
  EXPECT_EQ(r.vocab.distinct_words, 2u);
  EXPECT_EQ(to_json(r)["pruned"]["words"], 1);
}

TEST(TrainFromCorpus, FormatRecordedAsSpelled) {
  testing::TempDir dir;
  TrainFromCorpusOptions o = options_for(dir, kTinyCorpus);
  o.corpus.format = text::Format::Text;
  EXPECT_EQ(to_json(o)["format"], "text");
  o.format_spelling = "txt";
  EXPECT_EQ(to_json(o)["format"], "txt");
}

// Option errors come before any reading: the input does not exist, and nothing is created.
TEST(TrainFromCorpus, OptionErrorsBeforeReading) {
  testing::TempDir dir;
  TrainFromCorpusOptions o;
  o.corpus.inputs = {dir.file("missing.txt")};
  o.out = dir.file("out");
  o.trainer.special_tokens = {"[PAD]", "[CLS]", "[SEP]"};
  EXPECT_EQ(testing::error_of([&] { train_from_corpus(o); }),
            "--special-tokens must include [UNK] (a BERT tokenizer needs [UNK], [CLS] and [SEP])");
  o.trainer.special_tokens = {"[UNK]", "[CLS]", "[SEP]", "[UNK]"};
  EXPECT_EQ(testing::error_of([&] { train_from_corpus(o); }), "special token '[UNK]' is given twice");
  o.trainer.special_tokens = {"[UNK]", "[CLS]", "[SEP]"};
  testing::write_file(dir.file("file"), "x");
  o.out = dir.file("file");
  EXPECT_EQ(testing::error_of([&] { train_from_corpus(o); }),
            "--out " + dir.file("file") + " exists and is not a directory");
  o.out = dir.file("out");
  EXPECT_NE(testing::error_of([&] { train_from_corpus(o); }).find("missing.txt"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out")));
}

// Documents whose text normalizes to nothing (control characters are removed) leave no words.
TEST(TrainFromCorpus, CorpusWithoutWords) {
  testing::TempDir dir;
  const TrainFromCorpusOptions o = options_for(dir, "\x01\x02\n\x03\n");
  EXPECT_EQ(testing::error_of([&] { train_from_corpus(o); }), "the corpus has no words (2 documents, 5 bytes)");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/vocab.txt")));
}

}  // namespace
}  // namespace bertpt::tokenizer
