// The BertNormalizer switches --lowercase/--cased, --strip-accents/--keep-accents and
// --no-chinese-chars, declared and read once for the two commands that take them: `tokenizer train`
// (the normalizer to train with) and `tokenizer encode|decode` (how to read a bare vocab.txt).
#pragma once

#include <CLI/CLI.hpp>

#include "tokenizer/hf_files.h"
#include "tokenizer/normalizers/bert.h"

namespace bertpt::cli {

struct NormalizerFlags {
  bool lowercase = false, cased = false, strip_accents = false, keep_accents = false;
  bool no_chinese_chars = false;

  // For training: lowercase unless --cased; accents stripped when lowercasing unless --keep-accents,
  // or always with --strip-accents (NormalizerOptions leaves strip_accents unset otherwise).
  tokenizer::NormalizerOptions normalizer_options() const;
  // For a bare vocab.txt: only the settings a flag names; the rest come from tokenizer_config.json.
  tokenizer::VocabTxtOptions vocab_txt_options() const;
};

// What the flags configure, which decides their help texts.
enum class NormalizerFlagsFor { Training, VocabTxt };

// Adds the five flags to `cmd` (--lowercase excludes --cased, --strip-accents excludes --keep-accents).
void add_normalizer_flags(CLI::App* cmd, NormalizerFlags& flags, NormalizerFlagsFor use);

}  // namespace bertpt::cli
