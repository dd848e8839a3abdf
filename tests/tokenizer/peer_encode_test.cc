// Conformance with Hugging Face tokenizers (Python tokenizers, tests/peer/peer.py) on real
// multilingual text and hand-written edge cases: ids, pairs, decode, and tokenizer.json in both
// directions. The vocabulary is trained by HF itself on the test corpus (nothing big is committed).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "common/atomic_file.h"
#include "common/hash.h"
#include "common/test_util.h"
#include "peer.h"
#include "text/utf8.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/normalizers/bert.h"

namespace bertpt::tokenizer {
namespace {

namespace fs = std::filesystem;
using testing::run_peer;
using testing::shell_quote;
using testing::TempDir;

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string join_ids(const std::vector<uint32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s;
}

void append_cp(std::string& s, uint32_t cp) { text::append_utf8(s, cp); }

// Hand-written edge cases, one per line (no '\n' inside).
std::vector<std::string> edge_cases() {
  std::vector<std::string> v = {
      "Hello, World! This is BERT's tokenizer; it isn't perfect... (or is it?)",
      "Café naïve résumé Ångström façade niño STRAßE ÉCOLE Œuvre",
      "e\xCC\x81 a\xCC\x80\xCC\x81\xCC\x82 o\xCC\x88\xCC\xA3 combining marks",
      "\xE4\xB8\xAD\xE6\x96\x87\xE5\x88\x86\xE8\xAF\x8D\xE6\xB5\x8B\xE8\xAF\x95\xEF\xBC\x8C\xE6\x97\xA5\xE6\x9C\xAC\xE8"
      "\xAA\x9E\xE3\x81\xB2\xE3\x82\x89\xE3\x81\x8C\xE3\x81\xAA",
      "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4 \xED\x85\x8C\xEC\x8A\xA4\xED\x8A\xB8",
      "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82, \xD0\xBC\xD0\xB8\xD1\x80! \xD0\x81\xD0\xBB\xD0\xBA\xD0\xB0",
      "\xCE\x9F\xCE\x94\xCE\xA5\xCE\xA3\xCE\xA3\xCE\x95\xCE\xA5\xCE\xA3 \xCE\xAC\xCE\xAD\xCE\xAE",
      "emoji \xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD "
      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 flags \xF0\x9F\x87\xA9\xF0\x9F\x87\xAA",
      "controls\x01\x02\x7F here \x0B\x0C vt ff \xC2\x85 nel",
      "zero\xE2\x80\x8Bwidth\xE2\x80\x8Cjoiner\xE2\x80\x8D\xEF\xBB\xBF"
      "bom\xC2\xAD"
      "shy",
      "nbsp\xC2\xA0"
      "ideo\xE3\x80\x80"
      "em\xE2\x80\x83"
      "thin\xE2\x80\x89"
      "ls\xE2\x80\xA8"
      "ps\xE2\x80\xA9"
      "ogham\xE1\x9A\x80"
      "x",
      "tabs\tand\rcarriage returns",
      std::string(101, 'a') + " " + std::string(100, 'b') + " " + std::string(150, 'x') + "y",
      "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
      "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
      "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
      "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
      "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3"
      "\xA9",
      "after unicode 8: \xF0\x9F\xA4\xA3 \xF0\x9F\xA5\xB0 \xE0\xA2\xB6 \xF0\x91\xA4\xB8 \xEA\x9F\x8B \xF0\x96\xBA\xA0 "
      "\xE2\xB9\x8F \xF0\x93\x90\xB0 \xE1\xA2\x85 \xE1\x9C\xB4",
      "special tokens [MASK] and [CLS][SEP] in text, [mask] [UNK] [PAD]x [MASK",
      "   leading and trailing spaces   ",
      "",
      "\xEF\xBF\xBD replacement char and \xEE\x80\x80 private use \xF3\xB0\x80\x80",
      "math ∑∫ ≤ €100 ©®™ °C ½ ﬁ ligature Å (U+212B)",
      "\xD8\xA7\xD9\x84\xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A\xD8\xA9 "
      "\xD9\x85\xD9\x8E\xD8\xB1\xD9\x92\xD8\xAD\xD9\x8E\xD8\xA8\xD9\x8B\xD8\xA7 "
      "\xD7\xA2\xD7\x91\xD7\xA8\xD7\x99\xD7\xAA \xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80 "
      "\xE0\xB9\x84\xE0\xB8\x97\xE0\xB8\xA2",
      "x\xE3\x80\xAE\xF0\x9D\x85\xA5\xCC\x81 \xF0\x9D\x85\x9E\xE3\x80\xAE reordering "
      "\xE0\xA3\x94\xE3\x80\xAF\xF0\x9D\x85\xA5",
  };
  // Random mixes from interesting pools (deterministic).
  std::mt19937 rng(1234);
  const std::vector<std::pair<uint32_t, uint32_t>> pools = {
      {0x20, 0x7E},     {0x00, 0x20},       {0xA0, 0x24F},      {0x300, 0x36F},     {0x370, 0x52F},
      {0x1E00, 0x1FFF}, {0x2000, 0x206F},   {0x3000, 0x30FF},   {0x4E00, 0x4E80},   {0xAC00, 0xAC40},
      {0xF900, 0xF920}, {0xFE00, 0xFFFD},   {0x1D150, 0x1D1AF}, {0x1F300, 0x1FAFF}, {0x0900, 0x0DFF},
      {0x1780, 0x18AF}, {0x10000, 0x2FFFF}, {0xE0000, 0xE01EF}, {0x80, 0x10FFFF}};
  for (int line = 0; line < 400; ++line) {
    std::string s;
    const int len = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < len; ++k) {
      const auto& [lo, hi] = pools[rng() % pools.size()];
      uint32_t cp = lo + rng() % (hi - lo + 1);
      if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == '\n') cp = ' ';
      append_cp(s, cp);
    }
    v.push_back(s);
  }
  return v;
}

// Real text from Debian packages the setup installs (python3.11-doc, fortunes*), about 3 MB, plus
// the edge cases. Without the packages: only the edge cases.
std::string build_corpus() {
  std::string out;
  auto add_file = [&](const fs::path& p, size_t max_bytes) {
    std::ifstream in(p, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    data.resize(std::min(data.size(), max_bytes));
    std::string clean;
    text::RepairCounts counts;
    text::repair_utf8(data, clean, counts);
    out += clean;
    if (!out.empty() && out.back() != '\n') out += '\n';
  };
  auto add_tree = [&](const std::string& root, const std::string& skip_ext, size_t per_file, size_t total) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() != skip_ext && it->path().extension() != ".dat") {
        files.push_back(it->path());
      }
    }
    std::sort(files.begin(), files.end());
    const size_t start = out.size();
    for (const auto& f : files) {
      if (out.size() - start >= total) break;
      add_file(f, per_file);
    }
  };
  add_tree("/usr/share/doc/python3.11/html/_sources", "", 20000, 700000);
  add_tree("/usr/share/games/fortunes", ".u8", 8000, 1000000);
  for (const std::string& e : edge_cases()) out += e + "\n";
  return out;
}

// One HF-trained vocabulary for the whole suite, shared by the test processes CTest starts (one
// per test): built once under $TMPDIR, keyed by the corpus hash, and renamed into place when done.
class PeerEncode : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::peer_installed()) return;
    const std::string corpus = build_corpus();
    char key[32];
    const std::string peer = "python tokenizers@" + testing::peer_pinned_version() + " v1";
    std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(hash64(corpus + peer)));
    dir_ = (fs::temp_directory_path() / (std::string("bertpt-peer-encode-") + key)).string();
    if (!fs::exists(dir_ + "/DONE")) {
      TempDir build;
      testing::write_file(build.file("corpus.txt"), corpus);
      run_peer("peer.py train-bert " + shell_quote(build.file("hf_uncased")) + " lowercase " +
               shell_quote(build.file("corpus.txt")));
      run_peer("peer.py build " + shell_quote(build.file("hf_cased")) + " " +
               shell_quote(build.file("hf_uncased/vocab.txt")) + " cased");
      testing::write_file(build.file("DONE"), "");
      std::error_code ec;
      fs::rename(build.path(), dir_, ec);  // another process may have won the race: fine
      if (ec && !fs::exists(dir_ + "/DONE")) FAIL() << "cannot create " << dir_ << ": " << ec.message();
      fs::create_directories(build.path(), ec);  // TempDir removes it again
    }
    corpus_ = dir_ + "/corpus.txt";
  }

  static std::string file(const std::string& name) { return dir_ + "/" + name; }
  static std::vector<std::string> corpus_lines() { return split_lines(testing::slurp(corpus_)); }

  // HF's ids for every corpus line; outputs for the HF-written files are cached in the fixture.
  static std::vector<std::string> hf_ids(const std::string& peer_json, bool add_special,
                                         const std::string& cache_name = "") {
    const std::string cache = cache_name.empty() ? "" : file(cache_name);
    if (!cache.empty() && fs::exists(cache)) return split_lines(testing::slurp(cache));
    const std::string out = run_peer("peer.py encode " + shell_quote(peer_json) + " " + shell_quote(corpus_) +
                                     (add_special ? "" : " --no-special-tokens"));
    if (!cache.empty()) write_file_atomic(cache, out);
    return split_lines(out);
  }

  static void expect_same_ids(const Tokenizer& ours, const std::vector<std::string>& hf, bool add_special = true) {
    const auto lines = corpus_lines();
    ASSERT_EQ(hf.size(), lines.size());
    size_t bad = 0;
    std::vector<uint32_t> ids;
    for (size_t i = 0; i < lines.size(); ++i) {
      ids.clear();
      ours.encode(lines[i], ids, add_special);
      if (join_ids(ids) != hf[i] && ++bad <= 5) {
        ADD_FAILURE() << "line " << i + 1 << ": " << lines[i] << "\n  bertpt: " << join_ids(ids)
                      << "\n  HF:     " << hf[i];
      }
    }
    EXPECT_EQ(bad, 0u) << "of " << lines.size() << " lines";
  }

  static std::string dir_;
  static std::string corpus_;
};
std::string PeerEncode::dir_;
std::string PeerEncode::corpus_;

TEST_F(PeerEncode, HfWrittenTokenizerJsonUncased) {
  BERTPT_REQUIRE_PEER();
  const Tokenizer t = load_tokenizer(file("hf_uncased"));
  expect_same_ids(t, hf_ids(file("hf_uncased/tokenizer.json"), true, "hf_uncased.ids"));
  expect_same_ids(t, hf_ids(file("hf_uncased/tokenizer.json"), false, "hf_uncased_nospecial.ids"), false);
}

TEST_F(PeerEncode, HfWrittenTokenizerJsonCased) {
  BERTPT_REQUIRE_PEER();
  const Tokenizer t = load_tokenizer(file("hf_cased/tokenizer.json"));
  expect_same_ids(t, hf_ids(file("hf_cased/tokenizer.json"), true, "hf_cased.ids"));
}

TEST_F(PeerEncode, BareVocabTxtMatchesHf) {
  BERTPT_REQUIRE_PEER();
  VocabTxtOptions cased;
  cased.lowercase = false;
  expect_same_ids(load_tokenizer(file("hf_uncased/vocab.txt")),
                  hf_ids(file("hf_uncased/tokenizer.json"), true, "hf_uncased.ids"));
  expect_same_ids(load_tokenizer(file("hf_uncased/vocab.txt"), cased),
                  hf_ids(file("hf_cased/tokenizer.json"), true, "hf_cased.ids"));
}

TEST_F(PeerEncode, OurTokenizerJsonLoadsInHfAndEncodesIdentically) {
  BERTPT_REQUIRE_PEER();
  for (bool lowercase : {true, false}) {
    NormalizerOptions o;
    o.lowercase = lowercase;
    TempDir out;
    save_bert_tokenizer(out.path(), read_vocab_txt(file("hf_uncased/vocab.txt")), o);
    // HF loads our file and agrees with itself on its own file, and with us.
    const auto hf_on_ours = hf_ids(out.file("tokenizer.json"), true);
    EXPECT_TRUE(hf_on_ours == hf_ids(file(lowercase ? "hf_uncased/tokenizer.json" : "hf_cased/tokenizer.json"), true,
                                     lowercase ? "hf_uncased.ids" : "hf_cased.ids"));
    expect_same_ids(load_tokenizer(out.path()), hf_on_ours);
  }
}

TEST_F(PeerEncode, Pairs) {
  BERTPT_REQUIRE_PEER();
  const auto lines = corpus_lines();
  std::string pairs;
  std::vector<std::pair<std::string, std::string>> input;
  for (size_t i = 0; i + 1 < lines.size() && input.size() < 300; i += 97) {
    std::string a = lines[i], b = lines[i + 1];
    std::replace(a.begin(), a.end(), '\t', ' ');
    std::replace(b.begin(), b.end(), '\t', ' ');
    input.emplace_back(a, b);
    pairs += a + "\t" + b + "\n";
  }
  TempDir tmp;
  const std::string pairs_file = tmp.file("pairs.txt");
  testing::write_file(pairs_file, pairs);
  const auto hf = split_lines(run_peer("peer.py encode-pairs " + shell_quote(file("hf_uncased/tokenizer.json")) + " " +
                                       shell_quote(pairs_file)));
  ASSERT_EQ(hf.size(), input.size());
  const Tokenizer t = load_tokenizer(file("hf_uncased"));
  for (size_t i = 0; i < input.size(); ++i) {
    std::vector<uint32_t> ids, types;
    t.encode_pair(input[i].first, input[i].second, ids, &types);
    EXPECT_EQ(join_ids(ids) + "\t" + join_ids(types), hf[i]) << "pair " << i;
  }
}

TEST_F(PeerEncode, Decode) {
  BERTPT_REQUIRE_PEER();
  const Tokenizer t = load_tokenizer(file("hf_uncased"));
  const auto lines = corpus_lines();
  std::vector<std::vector<uint32_t>> seqs;
  for (size_t i = 0; i < lines.size(); i += 13) {
    std::vector<uint32_t> ids;
    t.encode(lines[i], ids);
    seqs.push_back(ids);
  }
  // Hand-made sequences for the clean-up rules, and random ids (incl. out-of-range).
  auto ids_of = [&](std::vector<std::string> tokens) {
    std::vector<uint32_t> ids;
    for (const auto& tok : tokens) {
      if (auto id = t.token_to_id(tok)) ids.push_back(*id);
    }
    return ids;
  };
  seqs.push_back(ids_of({"[CLS]", "i", "do", "not", "think", "it", "'", "s", ".", "[SEP]"}));
  seqs.push_back(ids_of({"don", "'", "t", "!", "?", ",", "n", "'", "t", "[PAD]", "[MASK]"}));
  std::mt19937 rng(7);
  for (int k = 0; k < 200; ++k) {
    std::vector<uint32_t> ids;
    for (int n = rng() % 30; n > 0; --n) ids.push_back(rng() % (t.vocab_size() + 10));
    seqs.push_back(ids);
  }
  std::string in;
  for (const auto& s : seqs) in += join_ids(s) + "\n";
  TempDir tmp;
  const std::string ids_file = tmp.file("ids.txt");
  testing::write_file(ids_file, in);
  for (bool skip : {false, true}) {
    const auto hf = split_lines(run_peer("peer.py decode " + shell_quote(file("hf_uncased/tokenizer.json")) + " " +
                                         shell_quote(ids_file) + (skip ? " --skip-special-tokens" : "")));
    ASSERT_EQ(hf.size(), seqs.size());
    size_t bad = 0;
    for (size_t i = 0; i < seqs.size(); ++i) {
      const std::string ours = t.decode(seqs[i], skip);
      if (ours != hf[i] && ++bad <= 5) {
        ADD_FAILURE() << "ids " << join_ids(seqs[i]) << "\n  bertpt: " << ours << "\n  HF: " << hf[i];
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

TEST_F(PeerEncode, NormalizerOnWholeLines) {
  BERTPT_REQUIRE_PEER();
  std::string in;
  for (const std::string& e : edge_cases()) in += e + "\n";
  TempDir tmp;
  const std::string edge_file = tmp.file("edge.txt");
  testing::write_file(edge_file, in);
  const auto lines = split_lines(in);
  const std::pair<const char*, NormalizerOptions> modes[] = {
      {"lowercase", NormalizerOptions{}},
      {"cased", NormalizerOptions{true, true, false, false}},
      {"lowercase-keep-accents", NormalizerOptions{true, true, false, true}},
      {"cased-strip-accents", NormalizerOptions{true, true, true, false}}};
  for (const auto& [mode, opt] : modes) {
    const auto hf = split_lines(run_peer(std::string("peer.py normalize ") + mode + " " + shell_quote(edge_file)));
    ASSERT_EQ(hf.size(), lines.size());
    const BertNormalizer norm(opt);
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(nlohmann::json(norm.normalize(lines[i])).dump(), hf[i]) << mode << " line " << i + 1;
    }
  }
}

}  // namespace
}  // namespace bertpt::tokenizer
