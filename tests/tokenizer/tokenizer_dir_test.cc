// A tokenizer directory as one set: written atomically (a failed or concurrent `tokenizer train`
// leaves the old directory whole), and on load a vocab.txt that disagrees with tokenizer.json — a mix
// of two tokenizers — is refused with one line naming both files. JSON files with fields of the wrong
// type are errors naming the file and the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/dir_lock.h"
#include "common/error.h"
#include "common/test_util.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/train_from_corpus.h"

namespace bertpt::tokenizer {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

const std::vector<std::string> kOld = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s"};
const std::vector<std::string> kNew = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "cat", "dog", "##s", "the"};

std::map<std::string, std::string> contents(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = slurp(e.path().string());
  return files;
}

TEST(TokenizerDir, AVocabTxtThatDisagreesWithTokenizerJsonIsRefusedNamingBoth) {
  TempDir a, b;
  save_bert_tokenizer(a.path(), kOld, NormalizerOptions{});
  save_bert_tokenizer(b.path(), kNew, NormalizerOptions{});
  // What an interrupted overwrite used to leave: the new vocab.txt beside the old tokenizer.json.
  fs::copy_file(b.file("vocab.txt"), a.file("vocab.txt"), fs::copy_options::overwrite_existing);
  const std::string e = error_of([&] { load_tokenizer(a.path()); });
  EXPECT_EQ(e, a.file("vocab.txt") + " disagrees with " + a.file("tokenizer.json") +
                   ": line 6 is \"cat\" but token 5 of tokenizer.json is \"hello\"");
  EXPECT_EQ(error_of([&] { load_tokenizer(a.file("tokenizer.json")); }), e);  // named as a file too
  // Shorter and longer.
  write_file(a.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n");
  EXPECT_EQ(error_of([&] { load_tokenizer(a.path()); }),
            a.file("vocab.txt") + " disagrees with " + a.file("tokenizer.json") +
                ": vocab.txt ends after 6 tokens, tokenizer.json has more");
  write_file(a.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s\nextra\n");
  EXPECT_EQ(error_of([&] { load_tokenizer(a.path()); }),
            a.file("vocab.txt") + " disagrees with " + a.file("tokenizer.json") +
                ": line 9 is \"extra\" but tokenizer.json has only 8 tokens");
}

TEST(TokenizerDir, AgreeingFilesLoadAsBeforeWhateverTheirLineEnds) {
  TempDir a;
  save_bert_tokenizer(a.path(), kOld, NormalizerOptions{});
  EXPECT_NO_THROW(load_tokenizer(a.path()));
  // No final newline, CRLF and trailing blank lines are the same vocabulary.
  write_file(a.file("vocab.txt"), "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nhello\r\nworld\r\n##s\r\n\n\n");
  EXPECT_NO_THROW(load_tokenizer(a.path()));
  write_file(a.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s");
  EXPECT_NO_THROW(load_tokenizer(a.path()));
  // Without vocab.txt, tokenizer.json alone.
  fs::remove(a.file("vocab.txt"));
  EXPECT_NO_THROW(load_tokenizer(a.path()));
}

TEST(TokenizerDir, IdsPastTheVocabularySizeAreRefusedNamingTheToken) {
  // An id past the size would size the id table by the id (4e9 asked for gigabytes): ids are dense.
  TempDir a;
  save_bert_tokenizer(a.path(), kOld, NormalizerOptions{});
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(slurp(a.file("tokenizer.json")));
  j["model"]["vocab"]["##s"] = 4000000000u;
  write_file(a.file("tokenizer.json"), j.dump());
  fs::remove(a.file("vocab.txt"));
  try {
    load_tokenizer(a.path());
    FAIL();
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("token '##s' has id 4000000000, but the vocabulary has " +
                                         std::to_string(kOld.size()) + " tokens"),
              std::string::npos)
        << e.what();
  }
}

TEST(TokenizerDir, SavingOverAnExistingDirectoryIsAllOrNothing) {
  TempDir a;
  save_bert_tokenizer(a.file("tok"), kOld, NormalizerOptions{});
  write_file(a.file("tok/README.md"), "my notes");
  const auto before = contents(a.file("tok"));
  const Tokenizer t = Tokenizer::bert(kNew, NormalizerOptions{}, {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"});
  // A failure after some of the new files are written (a full disk, say) changes nothing.
  EXPECT_THROW(save_tokenizer(t, a.file("tok"), 512, [](const std::string&) { throw BadInput("disk full"); }),
               BadInput);
  EXPECT_EQ(contents(a.file("tok")), before);
  EXPECT_EQ(fs::directory_iterator(a.path())->path().filename(), "tok");  // nothing beside it
  // A complete save replaces the set and keeps the user's own file.
  save_tokenizer(t, a.file("tok"));
  EXPECT_EQ(slurp(a.file("tok/README.md")), "my notes");
  EXPECT_EQ(load_tokenizer(a.file("tok")).vocab_size(), kNew.size());
}

TEST(TokenizerDir, TrainingIntoADirectoryInUseFailsAtOnceAndLeavesItWhole) {
  TempDir a;
  save_bert_tokenizer(a.file("tok"), kOld, NormalizerOptions{});
  const auto before = contents(a.file("tok"));
  write_file(a.file("corpus.txt"), "the cat and the dog\n");
  TrainFromCorpusOptions o;
  o.corpus.inputs = {a.file("corpus.txt")};
  o.trainer.vocab_size = 60;
  o.out = a.file("tok");
  {
    DirLock running = DirLock::beside(o.out);
    EXPECT_EQ(error_of([&] { train_from_corpus(o); }),
              o.out + " is in use by bertpt (pid " + std::to_string(::getpid()) + ")");
    EXPECT_EQ(contents(a.file("tok")), before);
  }
  train_from_corpus(o);
  EXPECT_TRUE(fs::exists(a.file("tok/bertpt_tokenizer_train.json")));
  EXPECT_NO_THROW(load_tokenizer(a.file("tok")));
  EXPECT_FALSE(fs::exists(lock_path_beside(o.out)));
}

TEST(TokenizerDir, WrongTypesInTheCompanionFilesNameTheFileAndTheField) {
  TempDir a;
  save_bert_tokenizer(a.path(), kOld, NormalizerOptions{});
  write_file(a.file("special_tokens_map.json"), R"({"pad_token": 5})");
  EXPECT_EQ(error_of([&] { load_tokenizer(a.path()); }),
            a.file("special_tokens_map.json") +
                ": field \"pad_token\" is an integer, expected a string or an object with a string \"content\"");
  write_file(a.file("special_tokens_map.json"), R"({"pad_token": {"content": "[PAD]"}, "unk_token": null})");
  EXPECT_NO_THROW(load_tokenizer(a.path()));
  // A bare vocab.txt takes its settings from tokenizer_config.json.
  fs::remove(a.file("tokenizer.json"));
  write_file(a.file("tokenizer_config.json"), R"({"do_lower_case": "yes"})");
  EXPECT_EQ(error_of([&] { load_tokenizer(a.path()); }),
            a.file("tokenizer_config.json") + ": field \"do_lower_case\" is a string, expected a boolean");
}

TEST(TokenizerDir, WrongTypesInTokenizerJsonNameTheFileAndTheField) {
  TempDir a;
  save_bert_tokenizer(a.path(), kOld, NormalizerOptions{});
  fs::remove(a.file("vocab.txt"));
  const nlohmann::json good = nlohmann::json::parse(slurp(a.file("tokenizer.json")));
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"/model/vocab/hello", "5"},
      {"/model/vocab", nlohmann::json::array()},
      {"/model/unk_token", 1},
      {"/normalizer/lowercase", "true"},
      {"/added_tokens/0/id", -1},
      {"/added_tokens/0/special", 1},
      {"/post_processor/single/0", "x"},
      {"/decoder/prefix", false},
      {"/model/max_input_chars_per_word", 1.5},
  };
  for (const auto& [pointer, value] : cases) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(pointer)] = value;
    write_file(a.file("tokenizer.json"), j.dump());
    std::string e;
    try {
      load_tokenizer(a.path());
      e = "(no error)";
    } catch (const BadInput& x) {
      e = x.what();
    } catch (const std::exception& x) {
      e = std::string("not a BadInput: ") + x.what();
    }
    EXPECT_EQ(e.rfind(a.file("tokenizer.json") + ": ", 0), 0u) << pointer << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace bertpt::tokenizer
