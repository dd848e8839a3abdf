// `bertpt tokenizer encode|decode` (and `train`, registered by cmd_tokenizer_train.cc): text to ids
// and back, byte-identical to Hugging Face tokenizers. One input line -> one output line; input is
// read in batches that --threads workers encode in parallel, written back in input order.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/normalizer_flags.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "text/byte_source.h"
#include "text/utf8.h"
#include "tokenizer/decoders/wordpiece.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::cli {
namespace {

using tokenizer::Tokenizer;

// --tokenizer and the options that only a bare vocab.txt needs.
struct TokenizerFlags {
  std::string path;
  NormalizerFlags normalizer;

  void add(CLI::App* cmd) {
    cmd->add_option("-t,--tokenizer", path,
                    "Tokenizer: a directory with tokenizer.json (preferred) or vocab.txt, or one of "
                    "those files (a Hugging Face BERT tokenizer directory works)")
        ->required();
    add_normalizer_flags(cmd, normalizer, NormalizerFlagsFor::VocabTxt);
  }

  Tokenizer load() const { return tokenizer::load_tokenizer(path, normalizer.vocab_txt_options()); }
};

// Reads the input as a sequence of byte blocks: a file (any compression the corpus readers know)
// or stdin for "-".
class Input {
 public:
  explicit Input(const std::string& path) : path_(path) {
    if (path != "-") source_ = text::open_byte_source(path);
  }
  size_t read(char* buf, size_t cap) {
    if (source_) return source_->read(buf, cap);
    const size_t n = std::fread(buf, 1, cap, stdin);
    if (n == 0 && std::ferror(stdin)) throw BadInput("stdin: read error");
    return n;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<text::ByteSource> source_;
};

// Writes to a file atomically (renamed into place by commit()), or to stdout for "-".
class Output {
 public:
  explicit Output(const std::string& path) {
    if (path != "-") file_ = std::make_unique<AtomicFile>(path);
  }
  void write(std::string_view s) {
    if (file_) {
      file_->write(s);
    } else if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) {
      throw BadInput("stdout: write error");
    }
  }
  void commit() {
    if (file_) {
      file_->commit();
    } else {
      std::fflush(stdout);
    }
  }

 private:
  std::unique_ptr<AtomicFile> file_;
};

// Runs `work(line, out)` over every input line, `threads` lines at a time in parallel, and writes
// each line's output followed by '\n' in input order. Returns the number of lines.
template <typename Work>
uint64_t process_lines(Input& in, Output& out, unsigned threads, const Work& work) {
  constexpr size_t kBatchBytes = 4u << 20;
  std::string buf, tail;
  std::vector<std::string_view> lines;
  std::vector<std::string> outs(threads);
  uint64_t count = 0;
  bool eof = false;
  while (!eof) {
    buf.swap(tail);
    tail.clear();
    const size_t start = buf.size();
    buf.resize(start + kBatchBytes);
    size_t got = 0;
    while (got < kBatchBytes) {  // fill the batch (sources may return short reads)
      const size_t n = in.read(buf.data() + start + got, kBatchBytes - got);
      if (n == 0) {
        eof = true;
        break;
      }
      got += n;
    }
    buf.resize(start + got);
    // Complete lines go now; a partial last line waits for the next batch.
    size_t end = buf.size();
    if (!eof) {
      const size_t nl = buf.rfind('\n');
      end = nl == std::string::npos ? 0 : nl + 1;
      tail.assign(buf, end, std::string::npos);
      if (end == 0) continue;  // one line longer than a batch: keep reading
    }
    lines.clear();
    for (size_t pos = 0; pos < end;) {
      size_t nl = buf.find('\n', pos);
      if (nl == std::string::npos || nl >= end) nl = end;
      lines.emplace_back(buf.data() + pos, nl - pos);
      pos = nl + 1;
    }
    if (lines.empty()) continue;
    const unsigned used = static_cast<unsigned>(std::min<size_t>(threads, lines.size()));
    auto run = [&](unsigned t) {
      const size_t lo = lines.size() * t / used, hi = lines.size() * (t + 1) / used;
      std::string& o = outs[t];
      o.clear();
      for (size_t i = lo; i < hi; ++i) {
        work(lines[i], o, t);
        o.push_back('\n');
      }
    };
    if (used == 1) {
      run(0);
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < used; ++t) pool.emplace_back(run, t);
      run(0);
      for (auto& th : pool) th.join();
    }
    for (unsigned t = 0; t < used; ++t) out.write(outs[t]);
    count += lines.size();
  }
  return count;
}

void append_uint(std::string& o, uint32_t v) {
  char buf[16];
  char* p = buf + sizeof buf;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  o.append(p, buf + sizeof buf - p);
}

struct EncodeOpts {
  CommonFlags common;
  TokenizerFlags tok;
  std::string input = "-";
  std::string output = "-";
  bool no_special_tokens = false;
  bool tokens = false;
  unsigned threads = 1;
};

void add_encode(CLI::App* parent) {
  auto o = std::make_shared<EncodeOpts>();
  auto* cmd = parent->add_subcommand("encode",
                                     "Text -> token ids, one output line of space-separated ids per input line");
  o->tok.add(cmd);
  cmd->add_option("-i,--input", o->input,
                  "Input text file, one sequence per line; compressed files are read too "
                  "(default: stdin)");
  cmd->add_option("-o,--output", o->output, "Output file, written atomically (default: stdout)");
  cmd->add_flag("--no-special-tokens", o->no_special_tokens,
                "Do not add the post-processor's special tokens ([CLS] ... [SEP], <s> ... </s>)");
  cmd->add_flag("--tokens", o->tokens, "Print token strings instead of ids");
  cmd->add_option("-j,--threads", o->threads, "Worker threads (output order is the input order whatever the count)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    if (o->common.json && o->output == "-") {
      throw BadInput("--json needs --output FILE", "the ids go to stdout otherwise");
    }
    const auto t0 = std::chrono::steady_clock::now();
    const Tokenizer tok = o->tok.load();
    Input in(o->input);
    Output out(o->output);
    std::vector<uint64_t> token_counts(o->threads, 0), repaired(o->threads, 0);
    const bool add_special = !o->no_special_tokens;
    const bool as_tokens = o->tokens;
    const uint64_t lines = process_lines(in, out, o->threads, [&](std::string_view line, std::string& dst, unsigned t) {
      thread_local std::vector<uint32_t> ids;
      thread_local std::string scratch;
      text::RepairCounts rc;
      const std::string_view clean = text::clean_utf8(line, scratch, rc);
      repaired[t] += rc.invalid + rc.nul;
      ids.clear();
      tok.encode(clean, ids, add_special);
      token_counts[t] += ids.size();
      for (size_t i = 0; i < ids.size(); ++i) {
        if (i) dst.push_back(' ');
        if (as_tokens) {
          dst.append(tok.id_to_token(ids[i]));
        } else {
          append_uint(dst, ids[i]);
        }
      }
    });
    out.commit();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t tokens = 0, bad = 0;
    for (unsigned t = 0; t < o->threads; ++t) {
      tokens += token_counts[t];
      bad += repaired[t];
    }
    if (o->common.json) {
      print_json({{"command", "tokenizer encode"},
                  {"lines", lines},
                  {"tokens", tokens},
                  {"invalid_utf8_repaired", bad},
                  {"threads", o->threads},
                  {"seconds", secs},
                  {"tokens_per_second", secs > 0 ? tokens / secs : 0.0}});
    } else if (!o->common.quiet) {
      std::fprintf(stderr, "tokenizer encode: %llu lines, %llu tokens in %.2f s (%.2f M tokens/s)%s\n",
                   static_cast<unsigned long long>(lines), static_cast<unsigned long long>(tokens), secs,
                   secs > 0 ? tokens / secs / 1e6 : 0.0,
                   bad ? (", " + std::to_string(bad) + " invalid UTF-8 sequences repaired").c_str() : "");
    }
  });
}

struct DecodeOpts {
  CommonFlags common;
  TokenizerFlags tok;
  std::string input = "-";
  std::string output = "-";
  bool skip_special_tokens = false;
  std::string clean_up = "auto";
};

// Whether decode cleans up the spaces around punctuation ("don ' t" -> "don't") as transformers'
// decode() does: --clean-up-tokenization-spaces, or with "auto" the tokenizer's own
// tokenizer_config.json (its directory: the --tokenizer directory, or the directory of the file).
bool decode_cleans_up(const DecodeOpts& o) {
  if (o.clean_up != "auto") return o.clean_up == "true";
  const std::filesystem::path p(o.tok.path);
  return tokenizer::clean_up_tokenization_spaces(std::filesystem::is_directory(p) ? p.string()
                                                                                  : p.parent_path().string());
}

void add_decode(CLI::App* parent) {
  auto o = std::make_shared<DecodeOpts>();
  auto* cmd = parent->add_subcommand(
      "decode",
      "Token ids -> text (through the tokenizer's own decoder, as Hugging Face decodes), one line per input line");
  o->tok.add(cmd);
  cmd->add_option("-i,--input", o->input, "Input file: space-separated ids, one sequence per line (default: stdin)");
  cmd->add_option("-o,--output", o->output, "Output file, written atomically (default: stdout)");
  cmd->add_flag("--skip-special-tokens", o->skip_special_tokens, "Leave out special tokens ([CLS], [SEP], [PAD], ...)");
  cmd->add_option("--clean-up-tokenization-spaces", o->clean_up,
                  "Remove the spaces before punctuation and contractions (\"don ' t\" -> \"don't\") as transformers' "
                  "decode() does: auto (as the tokenizer's tokenizer_config.json says; absent: true), true, false")
      ->check(CLI::IsMember({"auto", "true", "false"}))
      ->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    if (o->common.json && o->output == "-") {
      throw BadInput("--json needs --output FILE", "the text goes to stdout otherwise");
    }
    const Tokenizer tok = o->tok.load();
    const bool clean_up = decode_cleans_up(*o);
    Input in(o->input);
    Output out(o->output);
    uint64_t line_no = 0;
    const std::string& name = in.path() == "-" ? std::string("stdin") : in.path();
    const uint64_t lines = process_lines(in, out, 1, [&](std::string_view line, std::string& dst, unsigned) {
      ++line_no;
      std::vector<uint32_t> ids;
      size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        if (i == line.size()) break;
        uint64_t v = 0;
        size_t start = i;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9' && v <= 0xFFFFFFFFull) {
          v = v * 10 + static_cast<uint64_t>(line[i] - '0');
          ++i;
        }
        if (i == start || v > 0xFFFFFFFFull ||
            (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')) {
          throw BadInput(at(name, line_no) + ": expected space-separated token ids, found '" +
                         std::string(line.substr(start, std::min<size_t>(20, line.size() - start))) + "'");
        }
        ids.push_back(static_cast<uint32_t>(v));
      }
      std::string text = tok.decode(ids, o->skip_special_tokens);
      dst += clean_up ? tokenizer::clean_up_tokenization(std::move(text)) : text;
    });
    out.commit();
    if (o->common.json) {
      print_json({{"command", "tokenizer decode"}, {"lines", lines}});
    }
  });
}

}  // namespace

void add_tokenizer_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "tokenizer", "Tokenizers (WordPiece, byte-level BPE, Unigram): train, encode, decode, identical to Hugging Face");
  cmd->require_subcommand(1);
  add_tokenizer_train_subcommand(cmd);
  add_encode(cmd);
  add_decode(cmd);
}

}  // namespace bertpt::cli
