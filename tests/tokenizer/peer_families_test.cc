// The byte-level BPE and Unigram families against Hugging Face tokenizers itself: the peer scripts
// (tests/peer/bpe_peer.py, tests/peer/unigram_peer.py) train and save tokenizers with `tokenizers`
// (RoBERTa-style BPE with RobertaProcessing, ModernBERT-style BPE with TemplateProcessing,
// byte_fallback on and off, Split + ByteLevel as Llama 3 / OLMo ship it; Unigram with Metaspace in
// each prepend scheme, sentencepiece models with a Precompiled charsmap converted as XLM-R and Llama
// ship them) and record what tokenizers returns for nasty inputs (every script, emoji, combining
// marks, control characters, empty and 100k-character lines). bertpt loads each tokenizer.json
// through the whole Tokenizer and must give the same ids, with and without special tokens, and
// the same decoded text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "peer.h"
#include "tokenizer/hf_files.h"

namespace bertpt::tokenizer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The peer's tokenizers, built once per process into one directory.
const std::string& peer_tokenizers() {
  static testing::TempDir dir;
  static const bool built = [] {
    testing::run_peer("bpe_peer.py build " + testing::shell_quote(dir.path() + "/bpe"));
    testing::run_peer("unigram_peer.py " + testing::shell_quote(dir.path() + "/unigram"));
    return true;
  }();
  (void)built;
  return dir.path();
}

std::vector<json> read_jsonl(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

std::string shown_ids(const std::vector<uint32_t>& ids) { return json(ids).dump(); }

// Compares every record of `folder`/expected.jsonl; `inputs` holds the texts when the records do not.
// Returns how many records were compared.
size_t compare_folder(const fs::path& folder, const std::vector<std::string>& inputs) {
  SCOPED_TRACE(folder.filename().string());
  const Tokenizer tok = load_tokenizer((folder / "tokenizer.json").string());
  const std::vector<json> records = read_jsonl((folder / "expected.jsonl").string());
  size_t mismatches = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const json& r = records[i];
    const std::string text = r.contains("text") ? r["text"].get<std::string>() : inputs.at(i);
    const std::string shown = text.size() > 80 ? text.substr(0, 80) + "..." : text;
    std::vector<uint32_t> ids;
    tok.encode(text, ids, false);
    const auto want = r["ids"].get<std::vector<uint32_t>>();
    if (ids != want && ++mismatches <= 3) {
      ADD_FAILURE() << "input " << i << " " << json(shown).dump() << ": bertpt " << shown_ids(ids) << ", HF "
                    << shown_ids(want);
    }
    if (r.contains("special_ids")) {
      std::vector<uint32_t> with_specials;
      tok.encode(text, with_specials, true);
      EXPECT_EQ(with_specials, r["special_ids"].get<std::vector<uint32_t>>()) << "input " << i;
    }
    if (r.contains("decoded") && ids == want) {
      EXPECT_EQ(tok.decode(ids, false), r["decoded"].get<std::string>()) << "input " << i;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << records.size() << " inputs";
  return records.size();
}

void compare_family(const std::string& family, size_t at_least) {
  const fs::path root = fs::path(peer_tokenizers()) / family;
  std::vector<std::string> inputs;
  if (fs::exists(root / "inputs.json")) inputs = json::parse(testing::slurp((root / "inputs.json").string()));
  size_t tokenizers = 0, records = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "expected.jsonl")) continue;
    records += compare_folder(entry.path(), inputs);
    ++tokenizers;
  }
  EXPECT_GE(tokenizers, at_least);
  EXPECT_GT(records, tokenizers * 50);
}

TEST(PeerFamilies, ByteLevelBpeEncodesAndDecodesAsTokenizers) {
  BERTPT_REQUIRE_PEER();
  compare_family("bpe", 4);
}

TEST(PeerFamilies, UnigramEncodesAndDecodesAsTokenizers) {
  BERTPT_REQUIRE_PEER();
  compare_family("unigram", 6);
}

}  // namespace
}  // namespace bertpt::tokenizer
