// Hugging Face tokenizer files (docs/hf-compat.md): tokenizer.json, vocab.txt,
// tokenizer_config.json and special_tokens_map.json, read and written so that
// `BertTokenizerFast.from_pretrained(dir)` / `Tokenizer.fromFile` load ours unchanged and we load
// theirs. Readers refuse pipeline pieces other than a BERT tokenizer's with an error that names
// the file and the field.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace bertpt::tokenizer {

// Normalizer settings for a bare vocab.txt (a tokenizer.json carries its own). Unset fields come
// from tokenizer_config.json beside the vocab.txt when there is one, else BERT-uncased defaults.
struct VocabTxtOptions {
  std::optional<bool> lowercase;
  std::optional<bool> strip_accents;
  std::optional<bool> handle_chinese_chars;
};

// `path`: a directory (its tokenizer.json, else its vocab.txt), a tokenizer.json or a vocab.txt.
Tokenizer load_tokenizer(const std::string& path, const VocabTxtOptions& vocab_options = {});

// Whether `dir` holds a tokenizer load_tokenizer can read (tokenizer.json or vocab.txt).
bool has_tokenizer_files(const std::string& dir);

// Whether transformers 5 cleans the text that decode() returns (decoder.h, clean_up_tokenization) for
// the tokenizer in `dir` whose model is `model_type` (Tokenizer::model_type()): the
// "clean_up_tokenization_spaces" of `dir`/tokenizer_config.json (absent file or field: false, the
// default of every fast tokenizer), except that a BPE model is never cleaned up (the cleanup strips
// spaces a byte-level BPE keeps) unless the config also sets
// "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output".
bool clean_up_tokenization_spaces(const std::string& dir, std::string_view model_type);

// Parses tokenizer.json text; `source` names it in errors.
Tokenizer parse_tokenizer_json(std::string_view json_text, const std::string& source);

// Reads one token per line (id = line index), as HF's WordPiece.from_file: trailing whitespace of
// a line is not part of the token.
std::vector<std::string> read_vocab_txt(const std::string& path);

// The files' contents.
std::string tokenizer_json(const Tokenizer& tokenizer);
std::string vocab_txt(const Tokenizer& tokenizer);
std::string tokenizer_config_json(const Tokenizer& tokenizer, size_t model_max_length = 512);
std::string special_tokens_map_json(const Tokenizer& tokenizer);

// Writes the four files into `dir` (created if missing) as one set: assembled in a temporary
// directory beside it, then swapped in (common/atomic_file.h, write_directory_set), so that a run
// killed or out of disk leaves the old tokenizer or the new one, never a mix. Other files of an
// existing `dir` are kept. `extra_files(tmp)` may add files of its own to the set.
void save_tokenizer(const Tokenizer& tokenizer, const std::string& dir, size_t model_max_length = 512,
                    const std::function<void(const std::string& tmp_dir)>& extra_files = {});

// What the trainer calls: a BERT tokenizer over a trained vocabulary (ids = positions), saved as a
// BertTokenizerFast directory (as save_tokenizer). Every string of `special_tokens` must be in the
// vocabulary; the unk/cls/sep roles must be too.
void save_bert_tokenizer(const std::string& dir, const std::vector<std::string>& vocab_in_id_order,
                         const NormalizerOptions& normalizer,
                         const std::vector<std::string>& special_tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]",
                                                                           "[MASK]"},
                         const BertSpecialTokens& roles = {}, size_t model_max_length = 512);

}  // namespace bertpt::tokenizer
