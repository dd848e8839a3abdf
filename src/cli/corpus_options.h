// The corpus input options shared by every command that reads text (corpus, tokenizer train,
// prepare): declared once here so their names, defaults and help never drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "text/corpus_reader.h"

namespace bertpt::cli {

struct CorpusFlags {
  std::vector<std::string> inputs;
  std::string format = "auto";
  std::string doc_per = "line";
  std::string text_field = "text";
  size_t max_line_bytes = 1 << 20;
  bool skip_bad_lines = false;
  std::vector<int64_t> namespaces = {0};
  size_t read_threads = 2;
  bool skip_bad_files = false;

  // Validates and converts; throws BadInput on unknown values.
  text::CorpusOptions to_options() const;
};

void add_corpus_flags(CLI::App* cmd, CorpusFlags& flags);

}  // namespace bertpt::cli
