#include "cli/normalizer_flags.h"

namespace bertpt::cli {

namespace {

struct FlagHelp {
  const char* lowercase;
  const char* cased;
  const char* strip_accents;
  const char* keep_accents;
  const char* no_chinese_chars;
};

constexpr FlagHelp kTrainingHelp = {
    "Lowercase the text (default; also strips accents)",   "Keep case (and accents, unless --strip-accents)",
    "Strip accents (default: when lowercasing)",           "Keep accents even when lowercasing",
    "Do not split CJK ideographs into words of their own",
};

constexpr FlagHelp kVocabTxtHelp = {
    "vocab.txt only: lowercase (default, unless tokenizer_config.json says otherwise)",
    "vocab.txt only: keep case (and accents)",
    "vocab.txt only: strip accents (default: when lowercasing)",
    "vocab.txt only: keep accents",
    "vocab.txt only: do not put spaces around CJK ideographs",
};

}  // namespace

tokenizer::NormalizerOptions NormalizerFlags::normalizer_options() const {
  tokenizer::NormalizerOptions n;
  n.lowercase = !cased;
  if (strip_accents) n.strip_accents = true;
  if (keep_accents) n.strip_accents = false;
  n.handle_chinese_chars = !no_chinese_chars;
  return n;
}

tokenizer::VocabTxtOptions NormalizerFlags::vocab_txt_options() const {
  tokenizer::VocabTxtOptions o;
  if (lowercase) o.lowercase = true;
  if (cased) o.lowercase = false;
  if (strip_accents) o.strip_accents = true;
  if (keep_accents) o.strip_accents = false;
  if (no_chinese_chars) o.handle_chinese_chars = false;
  return o;
}

void add_normalizer_flags(CLI::App* cmd, NormalizerFlags& flags, NormalizerFlagsFor use) {
  const FlagHelp& help = use == NormalizerFlagsFor::Training ? kTrainingHelp : kVocabTxtHelp;
  auto* lowercase = cmd->add_flag("--lowercase", flags.lowercase, help.lowercase);
  auto* cased = cmd->add_flag("--cased", flags.cased, help.cased);
  lowercase->excludes(cased);
  auto* strip = cmd->add_flag("--strip-accents", flags.strip_accents, help.strip_accents);
  auto* keep = cmd->add_flag("--keep-accents", flags.keep_accents, help.keep_accents);
  strip->excludes(keep);
  cmd->add_flag("--no-chinese-chars", flags.no_chinese_chars, help.no_chinese_chars);
}

}  // namespace bertpt::cli
