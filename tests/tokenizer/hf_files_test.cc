// tokenizer.json / vocab.txt / tokenizer_config.json / special_tokens_map.json: structure, round
// trips and refusal of bad files with messages that name the file.
#include "tokenizer/hf_files.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::tokenizer {
namespace {

using testing::slurp;
using testing::TempDir;
using testing::write_file;

const std::vector<std::string> kVocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
                                         "hello", "world", "##s",   "!",     "\xC3\xA9t\xC3\xA9"};

using testing::error_of;

TEST(HfFiles, SavedTokenizerJsonHasHfStructure) {
  TempDir dir;
  save_bert_tokenizer(dir.path(), kVocab, NormalizerOptions{});
  const auto j = nlohmann::json::parse(slurp(dir.file("tokenizer.json")));
  EXPECT_EQ(j["version"], "1.0");
  EXPECT_TRUE(j["truncation"].is_null());
  EXPECT_TRUE(j["padding"].is_null());
  ASSERT_EQ(j["added_tokens"].size(), 5u);
  EXPECT_EQ(j["added_tokens"][4],
            nlohmann::json::parse(R"({"id":4,"content":"[MASK]","single_word":false,"lstrip":false,
                                      "rstrip":false,"normalized":false,"special":true})"));
  EXPECT_EQ(j["normalizer"], nlohmann::json::parse(R"({"type":"BertNormalizer","clean_text":true,
      "handle_chinese_chars":true,"strip_accents":null,"lowercase":true})"));
  EXPECT_EQ(j["pre_tokenizer"], nlohmann::json::parse(R"({"type":"BertPreTokenizer"})"));
  EXPECT_EQ(j["post_processor"]["type"], "TemplateProcessing");
  EXPECT_EQ(j["post_processor"]["special_tokens"]["[CLS]"]["ids"], nlohmann::json::array({2}));
  EXPECT_EQ(j["post_processor"]["pair"][3], nlohmann::json::parse(R"({"Sequence":{"id":"B","type_id":1}})"));
  EXPECT_EQ(j["decoder"], nlohmann::json::parse(R"({"type":"WordPiece","prefix":"##","cleanup":true})"));
  EXPECT_EQ(j["model"]["type"], "WordPiece");
  EXPECT_EQ(j["model"]["max_input_chars_per_word"], 100);
  EXPECT_EQ(j["model"]["vocab"]["\xC3\xA9t\xC3\xA9"], 9);
  // Key order as HF writes it.
  std::vector<std::string> keys;
  const auto ordered = nlohmann::ordered_json::parse(slurp(dir.file("tokenizer.json")));
  for (auto it = ordered.begin(); it != ordered.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"version", "truncation", "padding", "added_tokens", "normalizer",
                                            "pre_tokenizer", "post_processor", "decoder", "model"}));
}

TEST(HfFiles, SavedCompanionFiles) {
  TempDir dir;
  NormalizerOptions cased;
  cased.lowercase = false;
  save_bert_tokenizer(dir.path(), kVocab, cased);
  std::string vocab;
  for (const auto& t : kVocab) vocab += t + "\n";
  EXPECT_EQ(slurp(dir.file("vocab.txt")), vocab);
  const auto st = nlohmann::json::parse(slurp(dir.file("special_tokens_map.json")));
  EXPECT_EQ(st, nlohmann::json::parse(R"({"cls_token":"[CLS]","mask_token":"[MASK]",
      "pad_token":"[PAD]","sep_token":"[SEP]","unk_token":"[UNK]"})"));
  const auto cfg = nlohmann::json::parse(slurp(dir.file("tokenizer_config.json")));
  EXPECT_EQ(cfg["do_lower_case"], false);
  EXPECT_EQ(cfg["model_max_length"], 512);
  EXPECT_EQ(cfg["tokenizer_class"], "BertTokenizer");
  EXPECT_TRUE(cfg["strip_accents"].is_null());
  EXPECT_EQ(cfg["tokenize_chinese_chars"], true);
  EXPECT_EQ(cfg["added_tokens_decoder"]["3"]["content"], "[SEP]");
}

TEST(HfFiles, CleanUpTokenizationSpacesFromTokenizerConfig) {
  TempDir dir;
  EXPECT_FALSE(clean_up_tokenization_spaces(dir.path(), "WordPiece"));  // no tokenizer_config.json: transformers 5's
  save_bert_tokenizer(dir.path(), kVocab, NormalizerOptions{});
  EXPECT_TRUE(clean_up_tokenization_spaces(dir.path(), "WordPiece"));  // ours say true, like BertTokenizerFast
  write_file(dir.file("tokenizer_config.json"), R"({"clean_up_tokenization_spaces": false})");
  EXPECT_FALSE(clean_up_tokenization_spaces(dir.path(), "WordPiece"));
  write_file(dir.file("tokenizer_config.json"), R"({"do_lower_case": true})");
  EXPECT_FALSE(clean_up_tokenization_spaces(dir.path(), "WordPiece"));  // absent: false
  // A BPE model is not cleaned up (transformers 5 ignores the setting for BPE), unless forced.
  write_file(dir.file("tokenizer_config.json"), R"({"clean_up_tokenization_spaces": true})");
  EXPECT_TRUE(clean_up_tokenization_spaces(dir.path(), "Unigram"));
  EXPECT_FALSE(clean_up_tokenization_spaces(dir.path(), "BPE"));
  write_file(dir.file("tokenizer_config.json"),
             R"({"clean_up_tokenization_spaces": true,
                 "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output": true})");
  EXPECT_TRUE(clean_up_tokenization_spaces(dir.path(), "BPE"));
  write_file(dir.file("tokenizer_config.json"), R"({"clean_up_tokenization_spaces": "yes"})");
  EXPECT_NE(
      error_of([&] { clean_up_tokenization_spaces(dir.path(), "WordPiece"); }).find("clean_up_tokenization_spaces"),
      std::string::npos);
  write_file(dir.file("tokenizer_config.json"), "{not json");
  EXPECT_NE(error_of([&] { clean_up_tokenization_spaces(dir.path(), "WordPiece"); }).find("tokenizer_config.json"),
            std::string::npos);
}

TEST(HfFiles, RoundTripThroughTokenizerJson) {
  TempDir dir;
  save_bert_tokenizer(dir.path(), kVocab, NormalizerOptions{});
  const Tokenizer a = load_tokenizer(dir.path());
  TempDir dir2;
  save_tokenizer(a, dir2.path());
  EXPECT_EQ(slurp(dir.file("tokenizer.json")), slurp(dir2.file("tokenizer.json")));
  EXPECT_EQ(slurp(dir.file("tokenizer_config.json")), slurp(dir2.file("tokenizer_config.json")));
  std::vector<uint32_t> ids;
  a.encode("Hello worlds! ÉTÉ", ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 5, 6, 7, 8, 1, 3}));  // "ÉTÉ" -> "ete": unknown
  EXPECT_EQ(load_tokenizer(dir.file("tokenizer.json")).vocab_size(), kVocab.size());
}

TEST(HfFiles, BareVocabTxtWithOptions) {
  TempDir dir;
  std::string vocab;
  for (const auto& t : kVocab) vocab += t + "\r\n";  // CRLF and trailing spaces are trimmed
  write_file(dir.file("vocab.txt"), vocab + "\n\n");
  std::vector<uint32_t> ids;
  load_tokenizer(dir.path()).encode("HELLO été", ids, false);
  EXPECT_EQ(ids, (std::vector<uint32_t>{5, 1}));  // "été" loses its accents: "ete" is unknown
  VocabTxtOptions keep;
  keep.strip_accents = false;
  ids.clear();
  load_tokenizer(dir.path(), keep).encode("HELLO ÉTÉ", ids, false);
  EXPECT_EQ(ids, (std::vector<uint32_t>{5, 9}));
  VocabTxtOptions cased;
  cased.lowercase = false;
  ids.clear();
  load_tokenizer(dir.file("vocab.txt"), cased).encode("HELLO hello", ids, false);
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 5}));
  // tokenizer_config.json beside it supplies do_lower_case.
  write_file(dir.file("tokenizer_config.json"), R"({"do_lower_case": false})");
  ids.clear();
  load_tokenizer(dir.path()).encode("HELLO hello", ids, false);
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 5}));
}

TEST(HfFiles, BadVocabTxt) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "[UNK]\na\n\nb\n");
  EXPECT_NE(error_of([&] { load_tokenizer(dir.path()); }).find("vocab.txt:3: empty token"), std::string::npos);
  write_file(dir.file("vocab.txt"), "[UNK]\n[CLS]\n[SEP]\na\na\n");
  EXPECT_NE(error_of([&] { load_tokenizer(dir.path()); }).find("vocab.txt:5: duplicate token 'a'"), std::string::npos);
  write_file(dir.file("vocab.txt"), "[CLS]\n[SEP]\na\n");
  EXPECT_NE(error_of([&] { load_tokenizer(dir.path()); }).find("'[UNK]' is not in the vocabulary"), std::string::npos);
  write_file(dir.file("vocab.txt"), "[UNK]\n\xFF\n");
  EXPECT_NE(error_of([&] { load_tokenizer(dir.path()); }).find("vocab.txt:2: not valid UTF-8"), std::string::npos);
  EXPECT_NE(error_of([&] { load_tokenizer(dir.file("missing")); }).find("no such file"), std::string::npos);
  TempDir empty;
  EXPECT_NE(error_of([&] { load_tokenizer(empty.path()); }).find("neither tokenizer.json nor vocab.txt"),
            std::string::npos);
}

TEST(HfFiles, BadTokenizerJson) {
  TempDir dir;
  save_bert_tokenizer(dir.path(), kVocab, NormalizerOptions{});
  const std::string good = slurp(dir.file("tokenizer.json"));
  auto with_change = [&](const std::function<void(nlohmann::ordered_json&)>& change) {
    auto j = nlohmann::ordered_json::parse(good);
    change(j);
    write_file(dir.file("tokenizer.json"), j.dump());
    return error_of([&] { load_tokenizer(dir.path()); });
  };
  write_file(dir.file("tokenizer.json"), "{\"model\": ");
  EXPECT_NE(error_of([&] { load_tokenizer(dir.path()); }).find("tokenizer.json: not valid JSON"), std::string::npos);
  // An unknown component is named in one line, with the kinds bertpt reads.
  const std::string unknown_model = with_change([](auto& j) { j["model"]["type"] = "Hmm"; });
  EXPECT_NE(unknown_model.find("tokenizer.json: field \"model.type\" is 'Hmm', a model bertpt does not know"),
            std::string::npos)
      << unknown_model;
  EXPECT_NE(unknown_model.find("WordPiece"), std::string::npos);
  EXPECT_NE(with_change([](auto& j) {
              j["normalizer"] = {{"type", "NFKX"}};
            }).find("field \"normalizer.type\" is 'NFKX', a normalizer bertpt does not know"),
            std::string::npos);
  EXPECT_NE(with_change([](auto& j) {
              j["pre_tokenizer"] = {{"type", "Sentence"}};
            }).find("pre_tokenizer.type"),
            std::string::npos);
  EXPECT_NE(with_change([](auto& j) { j["decoder"] = {{"type", "CTCish"}}; }).find("decoder.type"), std::string::npos);
  EXPECT_NE(with_change([](auto& j) {
              j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Nope"}}}}};
            }).find("pre_tokenizer.pretokenizers[0].type"),
            std::string::npos);
  EXPECT_NE(with_change([](auto& j) { j["model"].erase("vocab"); }).find("field \"model.vocab\" is missing"),
            std::string::npos);
  EXPECT_NE(with_change([](auto& j) {
              j["model"]["vocab"]["hello"] = "x";
            }).find("field \"model.vocab.hello\" is a string, expected an unsigned integer"),
            std::string::npos);
  EXPECT_NE(with_change([](auto& j) { j["model"]["vocab"]["hello"] = 6; }).find("id 6 is used twice"),
            std::string::npos);
  // Without [UNK] the ids have a hole: the largest one is past the vocabulary's size.
  EXPECT_NE(with_change([](auto& j) { j["model"]["vocab"].erase("[UNK]"); }).find("but the vocabulary has"),
            std::string::npos);
  EXPECT_NE(with_change([](auto& j) {
              j["post_processor"]["single"][0] = {{"Foo", 1}};
            }).find("post_processor.single[0]"),
            std::string::npos);
}

TEST(HfFiles, BertProcessingAndNullPieces) {
  TempDir dir;
  save_bert_tokenizer(dir.path(), kVocab, NormalizerOptions{});
  auto j = nlohmann::ordered_json::parse(slurp(dir.file("tokenizer.json")));
  j["post_processor"] = nlohmann::ordered_json::parse(
      R"({"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]})");
  j["decoder"] = nullptr;
  j["normalizer"] = nullptr;
  write_file(dir.file("tokenizer.json"), j.dump());
  const Tokenizer t = load_tokenizer(dir.path());
  std::vector<uint32_t> ids;
  t.encode("hello Hello", ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{2, 5, 1, 3}));   // no normalizer: "Hello" is unknown
  EXPECT_EQ(t.decode({5, 7, 8}, false), "hello ##s !");  // no decoder: joined with spaces
  const auto again = nlohmann::ordered_json::parse(tokenizer_json(t));
  EXPECT_EQ(again["post_processor"], j["post_processor"]);
}

TEST(HfFiles, SaveIsAtomicAndRefusesBadVocab) {
  TempDir dir;
  EXPECT_THROW(save_bert_tokenizer(dir.file("out"), {"[UNK]", "a", "a"}, {}), BadInput);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/tokenizer.json")));
  EXPECT_THROW(save_bert_tokenizer(dir.file("out"), {"[UNK]", "[CLS]", "[SEP]"}, {}, {"[MASK]"}), BadInput);
}

}  // namespace
}  // namespace bertpt::tokenizer
