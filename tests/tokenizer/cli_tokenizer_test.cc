// `bertpt tokenizer encode|decode` end to end: stdin/stdout and files, options, thread-count
// independence, and one clear error (exit 1) per kind of bad input.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/test_util.h"
#include "tokenizer/hf_files.h"

namespace bertpt::tokenizer {
namespace {

using testing::run_bertpt;
using testing::run_shell;
using testing::shell_quote;
using testing::slurp;
using testing::TempDir;
using testing::write_file;

// 0..4 specials, 5 hello, 6 world, 7 !, 8 un, 9 ##aff, 10 ##able, 11 ., 12 caf, 13 ##e
std::string make_tokenizer(const TempDir& dir) {
  const std::string out = dir.file("tok");
  save_bert_tokenizer(
      out,
      {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", "un", "##aff", "##able", ".", "caf", "##e"},
      NormalizerOptions{});
  return out;
}

TEST(TokenizerCli, EncodeStdinToStdout) {
  TempDir dir;
  const std::string tok = make_tokenizer(dir);
  write_file(dir.file("in.txt"), "Hello world!\nunaffable CAFÉ\n\nxyz [MASK]");
  auto r = run_shell("cat " + shell_quote(dir.file("in.txt")) + " | " + shell_quote(testing::bertpt_bin()) +
                     " tokenizer encode -q --tokenizer " + shell_quote(tok));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2 5 6 7 3\n2 8 9 10 12 13 3\n2 3\n2 1 4 3\n");
  r = run_bertpt("tokenizer encode -q --no-special-tokens --tokens -t " + shell_quote(tok) + " --input " +
                 shell_quote(dir.file("in.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello world !\nun ##aff ##able caf ##e\n\n[UNK] [MASK]\n");
}

TEST(TokenizerCli, OutputFileJsonAndThreadsGiveTheSameBytes) {
  TempDir dir;
  const std::string tok = make_tokenizer(dir);
  std::string in;
  for (int i = 0; in.size() < (5u << 20); ++i) {  // more than one 4 MiB batch
    in += (i % 3 == 0   ? "hello world! unaffable café"
           : i % 3 == 1 ? ""
                        : "x. world hello") +
          std::string(i % 7, '!') + "\n";
  }
  in += "last line without newline";
  write_file(dir.file("in.txt"), in);
  auto r1 = run_bertpt("tokenizer encode --json -t " + shell_quote(tok) + " -i " + shell_quote(dir.file("in.txt")) +
                       " -o " + shell_quote(dir.file("t1.txt")));
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_NE(r1.out.find("\"command\":\"tokenizer encode\""), std::string::npos) << r1.out;
  auto r3 = run_bertpt("tokenizer encode -q --threads 3 -t " + shell_quote(tok) + " -i " +
                       shell_quote(dir.file("in.txt")) + " -o " + shell_quote(dir.file("t3.txt")));
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  const std::string a = slurp(dir.file("t1.txt")), b = slurp(dir.file("t3.txt"));
  EXPECT_TRUE(a == b);
  size_t lines = 0;
  for (char c : a) lines += c == '\n';
  size_t in_lines = 0;
  for (char c : in) in_lines += c == '\n';
  EXPECT_EQ(lines, in_lines + 1);
  EXPECT_EQ(a.substr(a.size() - 13), "\n2 1 1 1 1 3\n");  // the last line, without its newline
}

TEST(TokenizerCli, Decode) {
  TempDir dir;
  const std::string tok = make_tokenizer(dir);
  write_file(dir.file("ids.txt"), "2 5 6 7 3\n2 8 9 10 12 13 11 3\n\n5 999 6\n");
  auto r = run_bertpt("tokenizer decode -t " + shell_quote(tok) + " -i " + shell_quote(dir.file("ids.txt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[CLS] hello world! [SEP]\n[CLS] unaffable cafe. [SEP]\n\nhello world\n");
  r = run_bertpt("tokenizer decode --skip-special-tokens -t " + shell_quote(tok) + " -i " +
                 shell_quote(dir.file("ids.txt")));
  EXPECT_EQ(r.out, "hello world!\nunaffable cafe.\n\nhello world\n");
}

TEST(TokenizerCli, HelpDocumentsEveryOption) {
  auto r = run_bertpt("tokenizer encode --help");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* opt :
       {"--tokenizer", "--input", "--output", "--no-special-tokens", "--tokens", "--threads", "--json", "--quiet",
        "--lowercase", "--cased", "--strip-accents", "--keep-accents", "--no-chinese-chars"}) {
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  }
  r = run_bertpt("tokenizer decode --help");
  EXPECT_NE(r.out.find("--skip-special-tokens"), std::string::npos);
}

TEST(TokenizerCli, BadInputIsOneClearErrorAndExit1) {
  TempDir dir;
  auto expect_error = [&](const std::string& args, const std::string& message) {
    auto r = run_bertpt(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  };
  expect_error("tokenizer encode -t " + shell_quote(dir.file("nope")), "nope: no such file");
  for (const char* d : {"bad", "dup", "nounk"}) std::filesystem::create_directories(dir.file(d));
  write_file(dir.file("bad/tokenizer.json"), "{\"model\": [");
  expect_error("tokenizer encode -t " + shell_quote(dir.file("bad")), "bad/tokenizer.json: not valid JSON");
  write_file(dir.file("dup/vocab.txt"), "[UNK]\n[CLS]\n[SEP]\nx\nx\n");
  expect_error("tokenizer encode -t " + shell_quote(dir.file("dup")), "dup/vocab.txt:5: duplicate token 'x'");
  write_file(dir.file("nounk/vocab.txt"), "[CLS]\n[SEP]\nx\n");
  expect_error("tokenizer encode -t " + shell_quote(dir.file("nounk")), "'[UNK]' is not in the vocabulary");
  const std::string tok = make_tokenizer(dir);
  write_file(dir.file("ids.txt"), "2 3\n2 x 3\n");
  expect_error("tokenizer decode -t " + shell_quote(tok) + " -i " + shell_quote(dir.file("ids.txt")),
               "ids.txt:2: expected space-separated token ids");
  expect_error("tokenizer encode --json -t " + shell_quote(tok), "--json needs --output");
  expect_error("tokenizer encode -t " + shell_quote(tok) + " -i " + shell_quote(dir.file("none.txt")), "none.txt");
}

}  // namespace
}  // namespace bertpt::tokenizer
