#include "classify/tagged_words.h"

#include <algorithm>
#include <set>

#include "common/error.h"
#include "text/byte_source.h"
#include "text/line_reader.h"

namespace bertpt::classify {

namespace {

constexpr size_t kMaxLineBytes = 1 << 20;

std::vector<std::string> columns(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

}  // namespace

std::vector<TaggedSentence> read_conll(const std::string& path, bool require_tags) {
  text::LineReader reader(text::open_byte_source(path), kMaxLineBytes);
  std::vector<TaggedSentence> sentences;
  TaggedSentence current;
  auto finish = [&] {
    if (!current.words.empty()) sentences.push_back(std::move(current));
    current = {};
  };
  std::string_view line;
  while (reader.next(line)) {
    const std::vector<std::string> cols = columns(line);
    if (cols.empty()) {
      finish();
      continue;
    }
    if (cols[0] == "-DOCSTART-") continue;
    if (cols.size() < 2 && require_tags) {
      throw BadInput(path + ":" + std::to_string(reader.line_number()) + ": '" + cols[0] + "' has no tag",
                     "a CoNLL line is the word, optional columns, then its tag (e.g. 'Paris NNP B-LOC')");
    }
    if (current.words.empty()) current.line = reader.line_number();
    current.words.push_back(cols.front());
    if (cols.size() >= 2) current.tags.push_back(cols.back());
  }
  finish();
  if (sentences.empty()) throw BadInput(path + ": no sentences", "CoNLL: one word and its tag per line");
  return sentences;
}

std::vector<std::string> tag_set(const std::vector<TaggedSentence>& sentences) {
  std::set<std::string> tags;
  for (const TaggedSentence& s : sentences) tags.insert(s.tags.begin(), s.tags.end());
  return {tags.begin(), tags.end()};
}

EncodedWords encode_words(const tokenizer::Tokenizer& tok, const std::vector<std::string>& words, size_t max_len) {
  const tokenizer::SpecialIds special = tok.special_ids();
  if (max_len < 3) throw BadInput("--max-seq-len must be at least 3 ([CLS], a token, [SEP])");
  EncodedWords e;
  e.ids.push_back(uint32_t(special.cls));
  e.word_of.push_back(-1);
  e.first_token.assign(words.size(), -1);
  std::vector<uint32_t> pieces;
  // A RoBERTa tokenizer (byte-level, RobertaProcessing) marks a word's start with "Ġ", the space before
  // it: every word gets one, as run_ner.py's add_prefix_space=True gives it for model_type roberta (a
  // byte-level tokenizer of another template, ModernBERT's, is tokenized without, as run_ner.py does).
  const auto& pre = tok.parts().pre_tokenizer;
  const auto& post = tok.parts().post_processor;
  const bool space_before = pre && pre->word_start_marker() == "\xC4\xA0" && post && post->type_ids_zero;
  std::string spaced;
  for (size_t w = 0; w < words.size(); ++w) {
    pieces.clear();
    if (space_before) {
      spaced.assign(1, ' ');
      spaced += words[w];
    }
    tok.encode(space_before ? std::string_view(spaced) : std::string_view(words[w]), pieces,
               /*add_special_tokens=*/false);
    for (uint32_t id : pieces) {
      if (e.ids.size() + 1 >= max_len) {
        e.truncated = true;
        break;
      }
      if (e.first_token[w] < 0) e.first_token[w] = int32_t(e.ids.size());
      e.ids.push_back(id);
      e.word_of.push_back(int32_t(w));
    }
    if (e.truncated) break;
  }
  e.ids.push_back(uint32_t(special.sep));
  e.word_of.push_back(-1);
  return e;
}

std::vector<int64_t> first_token_labels(const EncodedWords& e, const std::vector<int64_t>& tag_ids) {
  std::vector<int64_t> labels(e.ids.size(), -100);
  for (size_t w = 0; w < e.first_token.size() && w < tag_ids.size(); ++w) {
    if (e.first_token[w] >= 0) labels[size_t(e.first_token[w])] = tag_ids[w];
  }
  return labels;
}

}  // namespace bertpt::classify
