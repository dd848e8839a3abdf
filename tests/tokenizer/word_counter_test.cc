// WordCounts (the counting table) and count_words (parallel, pruned, deterministic corpus counting).
#include "tokenizer/word_counter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::tokenizer {
namespace {

using Items = std::vector<std::pair<std::string, uint64_t>>;

TEST(WordCounts, AddsCountsAndGrows) {
  WordCounts wc;
  for (int i = 0; i < 5000; ++i) wc.add("w" + std::to_string(i % 1000), 1);
  wc.add("w7", 10);
  EXPECT_EQ(wc.size(), 1000u);
  EXPECT_EQ(wc.total(), 5010u);
  EXPECT_EQ(wc.count("w7"), 15u);
  EXPECT_EQ(wc.count("w999"), 5u);
  EXPECT_EQ(wc.count("nope"), 0u);
  wc.add(std::string_view("", 0));  // the empty word is a word like any other here
  EXPECT_EQ(wc.count(""), 1u);
}

TEST(WordCounts, MergeIsASumWhateverTheOrder) {
  WordCounts a, b;
  a.add("x", 2);
  a.add("y", 1);
  b.add("y", 4);
  b.add("z", 1);
  WordCounts ab, ba;
  ab.merge_from(a);
  ab.merge_from(b);
  ba.merge_from(b);
  ba.merge_from(a);
  EXPECT_EQ(ab.sorted_items(), (Items{{"x", 2}, {"y", 5}, {"z", 1}}));
  EXPECT_EQ(ab.sorted_items(), ba.sorted_items());
  WordCounts small;
  small.add("x", 1);
  small.absorb(std::move(ab));  // swaps to merge the smaller table into the larger
  EXPECT_EQ(small.sorted_items(), (Items{{"x", 3}, {"y", 5}, {"z", 1}}));
  EXPECT_TRUE(ab.empty());
}

// Pruning removes whole count classes: every word with count <= t, for the smallest t that fits.
TEST(WordCounts, PruneRemovesWholeCountClasses) {
  WordCounts wc;
  wc.add("a", 5);
  wc.add("b", 3);
  wc.add("c", 3);
  wc.add("d", 1);
  wc.add("e", 1);
  WordCounts::PruneResult r = wc.prune_to(2);  // 3 words have count >= 3: the 3s go too
  EXPECT_EQ(wc.sorted_items(), (Items{{"a", 5}}));
  EXPECT_EQ(r.words, 4u);
  EXPECT_EQ(r.occurrences, 8u);
  EXPECT_EQ(r.max_count, 3u);
  EXPECT_EQ(wc.total(), 5u);
  EXPECT_EQ(wc.count("a"), 5u);  // the index was rebuilt
  wc.add("f", 1);
  EXPECT_EQ(wc.size(), 2u);
  EXPECT_EQ(wc.prune_to(10).words, 0u);
}

std::string write_corpus(const testing::TempDir& dir, int lines) {
  std::string text;
  uint64_t x = 99;
  for (int i = 0; i < lines; ++i) {
    for (int w = 0; w < 6; ++w) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      text += "W" + std::to_string((x >> 33) % (1 + (x >> 50) % 5000)) + ((x >> 20) % 9 == 0 ? "!" : "") + " ";
    }
    text += "\n";
  }
  testing::write_file(dir.file("c.txt"), text);
  return dir.file("c.txt");
}

// Thread count and batch size never change the counts; with pruning, epochs are points in the
// document stream, so the pruned table is the same too.
TEST(CountWords, SameCountsForEveryThreadCountAndBatchSize) {
  testing::TempDir dir;
  text::CorpusOptions corpus;
  corpus.inputs = {write_corpus(dir, 30000)};
  for (size_t max_words : {size_t(20'000'000), size_t(1500)}) {
    Items reference;
    uint64_t reference_pruned = 0;
    for (size_t threads : {1, 2, 7}) {
      for (size_t batch : {size_t(1) << 20, size_t(333)}) {
        WordCountOptions o;
        o.threads = threads;
        o.batch_bytes = batch;
        o.epoch_bytes = 50'000;
        o.max_words = max_words;
        WordCountResult r = count_words(corpus, o);
        EXPECT_EQ(r.threads, threads);
        EXPECT_EQ(r.corpus.documents, 30000u);
        EXPECT_LE(r.words.size(), max_words);
        if (reference.empty()) {
          reference = r.words.sorted_items();
          reference_pruned = r.pruned_occurrences;
          if (max_words == 1500) {
            EXPECT_GT(r.prune_rounds, 1u);
          }
          if (max_words != 1500) {
            // Lowercased, "!" split off: 180,000 words + the exclamation marks.
            EXPECT_EQ(r.words.count("!"), r.words.total() - 180000);
            EXPECT_EQ(r.pruned_words, 0u);
          }
        } else {
          EXPECT_EQ(r.words.sorted_items(), reference) << threads << " threads, batch " << batch;
          EXPECT_EQ(r.pruned_occurrences, reference_pruned);
        }
      }
    }
  }
}

TEST(CountWords, NormalizesAndPreTokenizesLikeBert) {
  testing::TempDir dir;
  testing::write_file(dir.file("t.txt"), "Héllo, WORLD!\nhello\t中文\n");
  text::CorpusOptions corpus;
  corpus.inputs = {dir.file("t.txt")};
  WordCountResult r = count_words(corpus, WordCountOptions{});
  EXPECT_EQ(r.words.sorted_items(),
            (Items{{"!", 1}, {",", 1}, {"hello", 2}, {"world", 1}, {"\xE4\xB8\xAD", 1}, {"\xE6\x96\x87", 1}}));
  WordCountOptions cased;
  cased.normalizer.lowercase = false;
  r = count_words(corpus, cased);
  EXPECT_EQ(r.words.count("H\xC3\xA9llo"), 1u);
  EXPECT_EQ(r.words.count("WORLD"), 1u);
}

TEST(CountWords, ReaderErrorsPropagate) {
  text::CorpusOptions corpus;
  corpus.inputs = {"/nonexistent/bertpt/corpus.txt"};
  EXPECT_THROW(count_words(corpus, WordCountOptions{}), BadInput);
  testing::TempDir dir;
  testing::write_file(dir.file("bad.jsonl"), "{\"text\": \"ok\"}\nnot json\n");
  corpus.inputs = {dir.file("bad.jsonl")};
  corpus.format = text::Format::Jsonl;
  EXPECT_THROW(count_words(corpus, WordCountOptions{}), BadInput);
}

}  // namespace
}  // namespace bertpt::tokenizer
