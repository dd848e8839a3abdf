// `bertpt tokenizer encode|decode` (and `train`, registered by cmd_tokenizer_train.cc): text to ids
// and back, byte-identical to Hugging Face tokenizers. One input line -> one output line, --threads
// lines at a time (tokenizer/line_processor.h).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/normalizer_flags.h"
#include "common/error.h"
#include "text/utf8.h"
#include "tokenizer/decoders/wordpiece.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/line_processor.h"
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
    tokenizer::LineInput in(o->input);
    tokenizer::LineOutput out(o->output);
    std::vector<uint64_t> token_counts(o->threads, 0), repaired(o->threads, 0);
    const bool add_special = !o->no_special_tokens;
    const bool as_tokens = o->tokens;
    const uint64_t lines = tokenizer::process_lines(
        in, out, o->threads, [&](std::string_view line, std::string& dst, unsigned t) {
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
bool decode_cleans_up(const DecodeOpts& o, const Tokenizer& tok) {
  if (o.clean_up != "auto") return o.clean_up == "true";
  const std::filesystem::path p(o.tok.path);
  return tokenizer::clean_up_tokenization_spaces(
      std::filesystem::is_directory(p) ? p.string() : p.parent_path().string(), tok.model_type());
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
  cmd->add_option(
         "--clean-up-tokenization-spaces", o->clean_up,
         "Remove the spaces before punctuation and contractions (\"don ' t\" -> \"don't\") as transformers' "
         "decode() does: auto (as transformers 5 reads the tokenizer's tokenizer_config.json: absent, false; never "
         "for a BPE model), true, false")
      ->check(CLI::IsMember({"auto", "true", "false"}))
      ->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    if (o->common.json && o->output == "-") {
      throw BadInput("--json needs --output FILE", "the text goes to stdout otherwise");
    }
    const Tokenizer tok = o->tok.load();
    const bool clean_up = decode_cleans_up(*o, tok);
    tokenizer::LineInput in(o->input);
    tokenizer::LineOutput out(o->output);
    uint64_t line_no = 0;
    const std::string& name = in.path() == "-" ? std::string("stdin") : in.path();
    const uint64_t lines = tokenizer::process_lines(in, out, 1, [&](std::string_view line, std::string& dst, unsigned) {
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
