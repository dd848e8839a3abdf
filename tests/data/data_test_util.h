// A small real BERT tokenizer and corpus for the data-stage tests, built in the test itself.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_util.h"
#include "data/prepare.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::testing {

// Documents of varied length (some longer than a block) with words in and out of the vocabulary.
inline std::vector<std::string> sample_documents(int n) {
  const char* words[] = {"the",     "cat",          "sat",   "on",   "a",     "mat",  "and",
                         "dog",     "ran",          "far",   "away", "from",  "home", "running",
                         "quickly", "unbelievable", "zebra", "quiz", "jumps", "over"};
  std::vector<std::string> docs;
  uint32_t x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    int len = 1 + int((x >> 16) % (i % 7 == 0 ? 90 : 25));
    std::string d = "Doc " + std::to_string(i) + ":";
    for (int k = 0; k < len; ++k) {
      x = x * 1103515245u + 12345u;
      d += " ";
      d += words[(x >> 16) % 20];
    }
    d += ".";
    docs.push_back(d);
  }
  return docs;
}

// Writes a BERT tokenizer (HF files) whose vocabulary covers part of sample_documents' words.
inline std::string write_test_tokenizer(const TempDir& dir) {
  std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  for (char c = 'a'; c <= 'z'; ++c) vocab.push_back(std::string(1, c));
  for (char c = '0'; c <= '9'; ++c) vocab.push_back(std::string(1, c));
  for (const char* p : {".", ":", ","}) vocab.push_back(p);
  for (char c = 'a'; c <= 'z'; ++c) vocab.push_back("##" + std::string(1, c));
  for (char c = '0'; c <= '9'; ++c) vocab.push_back("##" + std::string(1, c));
  for (const char* w : {"the", "cat", "sat", "on", "mat", "and", "dog", "ran", "far", "away", "home", "doc", "##ing",
                        "##ly", "run", "quick"}) {
    vocab.push_back(w);
  }
  std::string out = dir.file("tokenizer");
  tokenizer::save_bert_tokenizer(out, vocab, tokenizer::NormalizerOptions{});
  return out;
}

// The small prepare the data tests start from: 600 sample documents, the test tokenizer, 32-token
// blocks in shards of 50, two threads, 5% held out.
class PrepareFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    docs = sample_documents(600);
    std::string text;
    for (const auto& d : docs) text += d + "\n";
    corpus = dir.file("corpus.txt");
    write_file(corpus, text);
    tok_dir = write_test_tokenizer(dir);
  }
  data::PrepareOptions options(const std::string& out) const {
    data::PrepareOptions o;
    o.corpus.inputs = {corpus};
    o.tokenizer = tok_dir;
    o.out = dir.file(out);
    o.seq_len = 32;
    o.shard_rows = 50;
    o.threads = 2;
    o.valid_fraction = 0.05;
    return o;
  }
  TempDir dir;
  std::vector<std::string> docs;
  std::string corpus, tok_dir;
};

}  // namespace bertpt::testing
