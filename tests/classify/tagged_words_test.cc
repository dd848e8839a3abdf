// CoNLL reading and the first-sub-token labels of token classification: on the NCBI-disease excerpt
// (tests/fixtures/corpora/scibert/ner), on hand-made files, and against Hugging Face tokenizers'
// word ids for pre-tokenized input (the peer: tests/peer/peer.py encode-words).
#include "classify/tagged_words.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/test_util.h"
#include "data/data_test_util.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/peer.h"

namespace bertpt::classify {
namespace {

using testing::TempDir;

std::string ncbi(const std::string& split) {
  return testing::shared_data_dir() + "/scibert/ner/NCBI-disease/" + split + ".txt";
}

TEST(TaggedWords, ReadsConllSentencesWithTheLastColumnAsTag) {
  const std::vector<TaggedSentence> s = read_conll(ncbi("train"), true);
  ASSERT_GT(s.size(), 100u);
  // The file's first sentence: "Identification of APC2 , a homologue of the adenomatous polyposis coli tumour ..."
  EXPECT_EQ(s[0].line, 1u);
  EXPECT_EQ(s[0].words[0], "Identification");
  EXPECT_EQ(s[0].words[2], "APC2");
  EXPECT_EQ(s[0].tags[8], "B-Disease");
  EXPECT_EQ(s[0].tags[9], "I-Disease");
  for (const TaggedSentence& t : s) ASSERT_EQ(t.words.size(), t.tags.size());
  EXPECT_EQ(tag_set(s), (std::vector<std::string>{"B-Disease", "I-Disease", "O"}));
}

TEST(TaggedWords, DocStartBlankLinesAndMissingTags) {
  TempDir dir;
  testing::write_file(dir.file("a.conll"),
                      "-DOCSTART- -X- -X- O\n\nEU NNP B-ORG\nrejects VBZ O\n\n\n"
                      "Peter\tNNP\tB-PER\nBlackburn NNP I-PER\n");
  const std::vector<TaggedSentence> s = read_conll(dir.file("a.conll"), true);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].words, (std::vector<std::string>{"EU", "rejects"}));
  EXPECT_EQ(s[0].line, 3u);
  EXPECT_EQ(s[1].tags, (std::vector<std::string>{"B-PER", "I-PER"}));
  testing::write_file(dir.file("b.conll"), "EU B-ORG\nrejects\n");
  EXPECT_EQ(testing::error_of([&] { read_conll(dir.file("b.conll"), true); }),
            dir.file("b.conll") + ":2: 'rejects' has no tag");
  EXPECT_EQ(read_conll(dir.file("b.conll"), false)[0].words.size(), 2u);  // words to tag
  testing::write_file(dir.file("c.conll"), "\n-DOCSTART- O\n\n");
  EXPECT_EQ(testing::error_of([&] { read_conll(dir.file("c.conll"), true); }), dir.file("c.conll") + ": no sentences");
}

TEST(TaggedWords, LabelsGoOnTheFirstSubTokenOfEachWord) {
  TempDir dir;
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(testing::write_test_tokenizer(dir));
  const std::vector<std::string> words = {"the", "cats", "sat"};
  const EncodedWords e = encode_words(tok, words, 64);
  ASSERT_EQ(e.word_of.front(), -1);
  ASSERT_EQ(e.word_of.back(), -1);
  const std::vector<int64_t> labels = first_token_labels(e, {0, 1, 2});
  for (size_t w = 0; w < words.size(); ++w) {
    ASSERT_GE(e.first_token[w], 1);
    EXPECT_EQ(labels[size_t(e.first_token[w])], int64_t(w));
  }
  size_t labelled = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != -100) {
      ++labelled;
    } else if (e.word_of[i] >= 0) {
      EXPECT_NE(e.first_token[size_t(e.word_of[i])], int32_t(i));  // a later sub-token
    }
  }
  EXPECT_EQ(labelled, words.size());
  // Truncated: [CLS] + 2 tokens + [SEP]; the words cut off have no first token.
  const EncodedWords cut = encode_words(tok, words, 4);
  EXPECT_EQ(cut.ids.size(), 4u);
  EXPECT_TRUE(cut.truncated);
  EXPECT_EQ(cut.first_token[2], -1);
}

TEST(TaggedWordsPeer, IdsAndWordIdsEqualHuggingFaceOnPreTokenizedInput) {
  BERTPT_REQUIRE_PEER();
  TempDir dir;
  const std::vector<TaggedSentence> s = read_conll(ncbi("dev"), true);
  std::string corpus, input;
  for (const TaggedSentence& t : read_conll(ncbi("train"), true)) {
    for (const std::string& w : t.words) corpus += w + " ";
    corpus += "\n";
  }
  for (const TaggedSentence& t : s) {
    for (size_t i = 0; i < t.words.size(); ++i) input += (i ? "\t" : "") + t.words[i];
    input += "\n";
  }
  testing::write_file(dir.file("corpus.txt"), corpus);
  testing::write_file(dir.file("input.txt"), input);
  testing::run_peer("peer.py train-bert " + testing::shell_quote(dir.file("hf")) + " cased " +
                    testing::shell_quote(dir.file("corpus.txt")));
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(dir.file("hf/tokenizer.json"));
  for (size_t max_len : {size_t(512), size_t(24)}) {
    std::istringstream hf(
        testing::run_peer("peer.py encode-words " + testing::shell_quote(dir.file("hf/tokenizer.json")) + " " +
                          testing::shell_quote(dir.file("input.txt")) + " --max-length " + std::to_string(max_len)));
    std::string line;
    size_t n = 0, truncated = 0;
    for (const TaggedSentence& t : s) {
      ASSERT_TRUE(std::getline(hf, line));
      const EncodedWords e = encode_words(tok, t.words, max_len);
      std::string ids, words;
      for (size_t i = 0; i < e.ids.size(); ++i) {
        ids += (i ? " " : "") + std::to_string(e.ids[i]);
        words += (i ? " " : "") + std::to_string(e.word_of[i]);
      }
      ASSERT_EQ(ids + "\t" + words, line) << "sentence at line " << t.line << ", max length " << max_len;
      truncated += e.truncated ? 1 : 0;
      ++n;
    }
    EXPECT_EQ(n, s.size());
    if (max_len == 24) {
      EXPECT_GT(truncated, n / 4);  // the cut is exercised
    }
  }
}

}  // namespace
}  // namespace bertpt::classify
