// Helpers of the trainer tests (bpe_trainer_test.cc, unigram_trainer_test.cc): word counts from a list,
// and the files the trainer peers (tests/peer/bpe_trainer_peer.py, unigram_trainer_peer.py) write:
// counted words as "COUNT<TAB>WORD" lines, and one token per line.
#pragma once

#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer/word_counts.h"

namespace bertpt::testing {

inline tokenizer::WordCounts counts_of(std::initializer_list<std::pair<const char*, uint64_t>> items) {
  tokenizer::WordCounts words;
  for (const auto& [word, count] : items) words.add(word, count);
  return words;
}

// The fixture texts both peers train on: four languages of the UDHR, English Wikipedia (JSON Lines)
// and Jane Austen, under shared_data_dir() (names relative to it).
inline std::vector<std::string> trainer_peer_corpus() {
  return {"nltk_udhr_utf8/Chinese_Mandarin-UTF8",
          "nltk_udhr_utf8/Greek_Ellinika-UTF8",
          "nltk_udhr_utf8/Hindi-UTF8",
          "nltk_udhr_utf8/Russian_Russky-UTF8",
          "wikipedia_en_jsonl_derived/wiki_00.jsonl",
          "nltk_gutenberg/austen-emma.txt"};
}

// Reads "COUNT<TAB>WORD" lines (the word is everything after the first tab).
inline tokenizer::WordCounts read_word_counts_tsv(const std::string& path) {
  tokenizer::WordCounts words;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    words.add(line.substr(tab + 1), std::stoull(line.substr(0, tab)));
  }
  return words;
}

inline std::vector<std::string> read_token_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace bertpt::testing
