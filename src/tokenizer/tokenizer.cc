#include "tokenizer/tokenizer.h"

#include <utf8proc.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/error.h"
#include "tokenizer/decoders/wordpiece.h"
#include "tokenizer/models/wordpiece.h"
#include "tokenizer/pre_tokenizers/bert.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

namespace {

// Walks a post-processor template: special tokens are inserted, `append_sequence(0 or 1)` appends
// $A or $B, and each piece's ids get its type id. encode, encode_pair and post_process all go
// through here, so they cannot disagree on a template.
template <class AppendSequence>
void apply_template(const PostProcessor& pp, const std::vector<PostProcessor::Piece>& pieces,
                    std::vector<uint32_t>& ids, std::vector<uint32_t>* type_ids, AppendSequence&& append_sequence) {
  for (const PostProcessor::Piece& piece : pieces) {
    const size_t from = ids.size();
    if (piece.is_sequence) {
      append_sequence(piece.sequence);
    } else {
      const auto& special = pp.find(piece.special)->ids;
      ids.insert(ids.end(), special.begin(), special.end());
    }
    if (type_ids) type_ids->resize(type_ids->size() + (ids.size() - from), piece.type_id);
  }
}

// No template: the sequences one after the other, segment 0 for a and 1 for b.
template <class AppendSequence>
void concatenate(bool pair, std::vector<uint32_t>& ids, std::vector<uint32_t>* type_ids,
                 AppendSequence&& append_sequence) {
  for (int s = 0; s < (pair ? 2 : 1); ++s) {
    const size_t from = ids.size();
    append_sequence(s);
    if (type_ids) type_ids->resize(type_ids->size() + (ids.size() - from), uint32_t(s));
  }
}

// The character before byte `end` of `text` (valid UTF-8), or -1 at the start.
int32_t char_before(std::string_view text, size_t end) {
  if (end == 0) return -1;
  size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  size_t len;
  return int32_t(unicode::decode_utf8(reinterpret_cast<const unsigned char*>(text.data()) + start, end - start, len));
}

// The character at byte `at` of `text` and its length, or -1 at the end.
int32_t char_at(std::string_view text, size_t at, size_t& len) {
  len = 0;
  if (at >= text.size()) return -1;
  return int32_t(unicode::decode_utf8(reinterpret_cast<const unsigned char*>(text.data()) + at, text.size() - at, len));
}

// Rust regex's Unicode \w (added_vocabulary.rs's single_word test): letters, marks, decimal and
// letter numbers, connector punctuation, the joiners.
bool is_word_char(int32_t cp) {
  if (cp < 0) return false;
  if (cp < 0x80) return std::isalnum(cp) || cp == '_';
  if (cp == 0x200C || cp == 0x200D) return true;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_PC: return true;
    default: return false;
  }
}

// Rust regex's Unicode \s (lstrip/rstrip): White_Space.
bool is_space_char(int32_t cp) { return cp >= 0 && cp != 0xFFFD && (unicode::lookup(uint32_t(cp)) & unicode::kSpace); }

}  // namespace

BertSpecialTokens roles_by_name(const std::function<bool(const std::string&)>& has) {
  auto first_of = [&](std::initializer_list<const char*> names) -> std::string {
    for (const char* n : names) {
      if (has(n)) return n;
    }
    return "";
  };
  BertSpecialTokens r;
  r.cls = first_of({"<s>", "[CLS]"});
  r.sep = first_of({"</s>", "[SEP]"});
  r.pad = first_of({"<pad>", "[PAD]", "<|padding|>", "<|pad|>"});
  r.unk = first_of({"<unk>", "[UNK]", "<|unk|>"});
  r.mask = first_of({"<mask>", "[MASK]", "<|mask|>"});
  if (r.cls == "<s>") r.bos = r.cls;
  if (r.sep == "</s>") r.eos = r.sep;
  return r;
}

Tokenizer::Tokenizer(Parts parts) : parts_(std::move(parts)) {
  if (!parts_.model) throw BadInput("the tokenizer has no model");
  int first = -2;
  for (const AddedToken& t : parts_.added_tokens) {
    std::string match = t.content;
    if (t.normalized && parts_.normalizer && !match.empty()) {  // HF matches the normalized content
      match.clear();
      parts_.normalizer->normalize(t.content, match);
    }
    added_match_.push_back(match);
    if (match.empty()) continue;  // HF never matches an empty token
    (t.normalized ? has_normalized_added_ : has_raw_added_) = true;
    const auto b = static_cast<unsigned char>(match[0]);
    added_first_byte_[b] = true;
    first = (first == -2 || first == b) ? b : -1;
  }
  single_first_byte_ = first >= 0 ? first : -1;
  if (parts_.post_processor) {
    const PostProcessor& pp = *parts_.post_processor;
    for (const auto* pieces : {&pp.single, &pp.pair}) {
      for (const auto& piece : *pieces) {
        if (!piece.is_sequence && !pp.find(piece.special)) {
          throw BadInput("post_processor: the template uses '" + piece.special +
                         "', which is not in its special_tokens");
        }
      }
    }
  }

  vocab_size_ = parts_.model->size();
  for (size_t i = 0; i < parts_.added_tokens.size(); ++i) {
    const AddedToken& t = parts_.added_tokens[i];
    bool seen = parts_.model->token_to_id(t.content).has_value();
    for (size_t j = 0; j < i && !seen; ++j) seen = parts_.added_tokens[j].content == t.content;
    if (!seen) ++vocab_size_;
  }
  check_ids_in_vocabulary();
  auto id_of = [&](const std::string& name) -> int64_t {
    if (name.empty()) return -1;
    const auto id = token_to_id(name);
    return id ? static_cast<int64_t>(*id) : -1;
  };
  special_ids_.pad = id_of(parts_.roles.pad);
  special_ids_.unk = parts_.model->unk_id() ? int64_t(*parts_.model->unk_id()) : id_of(parts_.roles.unk);
  special_ids_.cls = id_of(parts_.roles.cls);
  special_ids_.sep = id_of(parts_.roles.sep);
  special_ids_.mask = id_of(parts_.roles.mask);
}

// Every id the tokenizer can emit lies in [0, vocab_size): a model sized by vocab_size() would fail
// on any other (an embedding lookup past its table), far from the file that caused it.
void Tokenizer::check_ids_in_vocabulary() const {
  auto check = [&](uint64_t id, const std::string& field) {
    if (id >= vocab_size_) {
      throw BadInput(field + " is " + std::to_string(id) + ", outside the vocabulary (ids 0 to " +
                         std::to_string(vocab_size_ - 1) + ")",
                     "the file was edited or damaged: restore it from the tokenizer it came from");
    }
  };
  for (size_t i = 0; i < parts_.added_tokens.size(); ++i) {
    check(parts_.added_tokens[i].id, "added_tokens[" + std::to_string(i) + "].id");
  }
  if (!parts_.post_processor) return;
  for (const PostProcessor::Special& sp : parts_.post_processor->special_tokens) {
    for (size_t i = 0; i < sp.ids.size(); ++i) {
      check(sp.ids[i], "post_processor.special_tokens." + sp.name + ".ids[" + std::to_string(i) + "]");
    }
  }
}

Tokenizer Tokenizer::bert(std::vector<std::string> vocab, const NormalizerOptions& normalizer,
                          const std::vector<std::string>& special_tokens, const BertSpecialTokens& roles,
                          const std::string& source) {
  Parts parts;
  parts.normalizer = std::make_shared<const BertNormalizer>(normalizer);
  parts.pre_tokenizer = std::make_shared<const BertPreTokenizer>();
  WordPieceOptions wp;
  wp.unk_token = roles.unk;
  const auto model = std::make_shared<const WordPiece>(WordPiece::from_tokens(std::move(vocab), wp, source));
  parts.model = model;
  for (const std::string& s : special_tokens) {
    const auto id = model->token_to_id(s);
    if (!id) throw BadInput(source + ": special token '" + s + "' is not in the vocabulary");
    AddedToken t;
    t.id = *id;
    t.content = s;
    parts.added_tokens.push_back(std::move(t));
  }
  uint32_t ids[2];
  for (int k = 0; k < 2; ++k) {
    const std::string& name = k == 0 ? roles.cls : roles.sep;
    const auto id = model->token_to_id(name);
    if (!id) {
      throw BadInput(source + ": '" + name + "' is not in the vocabulary",
                     "a BERT tokenizer needs the [CLS] and [SEP] tokens for its template");
    }
    ids[k] = *id;
  }
  parts.post_processor = PostProcessor::cls_sep(roles.cls, ids[0], roles.sep, ids[1], false);
  parts.decoder = std::make_shared<const WordPieceDecoder>();
  parts.roles = roles;
  return Tokenizer(std::move(parts));
}

void Tokenizer::pre_tokenize(std::string_view normalized, Words& words, bool at_origin) const {
  words.reset(normalized, at_origin);
  if (parts_.pre_tokenizer) parts_.pre_tokenizer->pre_tokenize(words);
}

const AddedToken* Tokenizer::find_literal(std::string_view text, size_t from, bool normalized, size_t& pos) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = from; i < n; ++i) {
    if (single_first_byte_ >= 0) {
      const void* hit = std::memchr(p + i, single_first_byte_, n - i);
      if (!hit) return nullptr;
      i = static_cast<const unsigned char*>(hit) - p;
    } else if (!added_first_byte_[p[i]]) {
      continue;
    }
    const AddedToken* found = nullptr;
    size_t best = 0;
    for (size_t k = 0; k < parts_.added_tokens.size(); ++k) {
      const std::string& m = added_match_[k];
      if (parts_.added_tokens[k].normalized != normalized || m.size() <= best || m.size() > n - i) continue;
      if (std::memcmp(p + i, m.data(), m.size()) == 0) {
        best = m.size();
        found = &parts_.added_tokens[k];
      }
    }
    if (found) {
      pos = i;
      return found;
    }
  }
  return nullptr;
}

// As added_vocabulary.rs's find_matches: a single_word token inside a word is no match (the search
// goes on after it); lstrip takes the whitespace before the match back to the previous match,
// rstrip the whitespace after it.
bool Tokenizer::find_added(std::string_view text, size_t from, bool normalized, size_t& pos, size_t& len,
                           uint32_t& id) const {
  for (size_t i = from;;) {
    size_t at = 0, cl = 0;
    const AddedToken* t = find_literal(text, i, normalized, at);
    if (!t) return false;
    size_t start = at, stop = at + added_match_[size_t(t - parts_.added_tokens.data())].size();
    if (t->single_word && (is_word_char(char_before(text, start)) || is_word_char(char_at(text, stop, cl)))) {
      i = stop;
      continue;
    }
    if (t->lstrip) {
      while (start > from && is_space_char(char_before(text, start))) {
        --start;
        while (start > from && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
      }
    }
    if (t->rstrip) {
      while (is_space_char(char_at(text, stop, cl))) stop += cl;
    }
    pos = start;
    len = stop - start;
    id = t->id;
    return true;
  }
}

bool Tokenizer::encode_normalized(std::string_view normalized, bool at_origin, std::vector<uint32_t>& ids,
                                  size_t stop_at) const {
  thread_local Words words;
  pre_tokenize(normalized, words, at_origin);
  const Model& model = *parts_.model;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::string_view word = words[w];
    if (word.empty()) continue;
    model.encode_word(word, ids);
    if (ids.size() >= stop_at) return true;
  }
  return false;
}

bool Tokenizer::encode_plain(std::string_view text, bool at_origin, std::vector<uint32_t>& ids, size_t stop_at) const {
  if (text.empty()) return false;
  thread_local std::string normalized;
  std::string_view norm = text;
  if (parts_.normalizer) {
    normalized.clear();
    if (at_origin) {  // a normalizer that drops the text's first characters moves it off the origin
      at_origin = parts_.normalizer->normalize_keeping_origin(text, normalized);
    } else {
      parts_.normalizer->normalize(text, normalized);
    }
    norm = normalized;
  }
  if (!has_normalized_added_) return encode_normalized(norm, at_origin, ids, stop_at);
  // `norm` may be the thread_local buffer: a nested call would overwrite it, and none happens below.
  size_t i = 0, pos, len;
  uint32_t id;
  while (find_added(norm, i, true, pos, len, id)) {
    if (encode_normalized(norm.substr(i, pos - i), at_origin && i == 0, ids, stop_at)) return true;
    ids.push_back(id);  // added tokens never stop it, as in HF
    i = pos + len;
  }
  return encode_normalized(norm.substr(i), at_origin && i == 0, ids, stop_at);
}

bool Tokenizer::encode_sequence(std::string_view text, std::vector<uint32_t>& ids, size_t stop_at) const {
  if (!has_raw_added_) return encode_plain(text, true, ids, stop_at);
  size_t i = 0, pos, len;
  uint32_t id;
  while (find_added(text, i, false, pos, len, id)) {
    if (encode_plain(text.substr(i, pos - i), i == 0, ids, stop_at)) return true;
    ids.push_back(id);
    i = pos + len;
  }
  return encode_plain(text.substr(i), i == 0, ids, stop_at);
}

void Tokenizer::encode_with_limit(std::string_view text, std::vector<uint32_t>& ids, size_t max_tokens) const {
  const size_t start = ids.size();
  encode_sequence(text, ids, max_tokens > SIZE_MAX - start ? SIZE_MAX : start + max_tokens);
}

void Tokenizer::encode(std::string_view text, std::vector<uint32_t>& ids, bool add_special_tokens) const {
  if (!add_special_tokens || !parts_.post_processor) {
    encode_sequence(text, ids);
    return;
  }
  // A single-sequence template only names $A.
  apply_template(*parts_.post_processor, parts_.post_processor->single, ids, nullptr,
                 [&](int) { encode_sequence(text, ids); });
}

void Tokenizer::encode_pair(std::string_view a, std::string_view b, std::vector<uint32_t>& ids,
                            std::vector<uint32_t>* type_ids, bool add_special_tokens) const {
  auto append = [&](int sequence) { encode_sequence(sequence == 0 ? a : b, ids); };
  const size_t from = type_ids ? type_ids->size() : 0;
  if (!add_special_tokens || !parts_.post_processor) {
    concatenate(true, ids, type_ids, append);
  } else {
    apply_template(*parts_.post_processor, parts_.post_processor->pair, ids, type_ids, append);
  }
  if (type_ids && parts_.post_processor && parts_.post_processor->type_ids_zero) {
    std::fill(type_ids->begin() + from, type_ids->end(), 0u);
  }
}

void Tokenizer::post_process(const std::vector<uint32_t>& a, const std::vector<uint32_t>* b, std::vector<uint32_t>& ids,
                             std::vector<uint32_t>* type_ids) const {
  auto append = [&](int sequence) {
    const std::vector<uint32_t>& seq = sequence == 1 && b ? *b : a;
    ids.insert(ids.end(), seq.begin(), seq.end());
  };
  if (!parts_.post_processor) {
    concatenate(b != nullptr, ids, type_ids, append);
    return;
  }
  const PostProcessor& pp = *parts_.post_processor;
  apply_template(pp, b ? pp.pair : pp.single, ids, type_ids, append);
}

size_t Tokenizer::num_special_tokens_to_add(bool pair) const {
  if (!parts_.post_processor) return 0;
  const PostProcessor& pp = *parts_.post_processor;
  size_t n = 0;
  for (const PostProcessor::Piece& piece : pair ? pp.pair : pp.single) {
    if (!piece.is_sequence) n += pp.find(piece.special)->ids.size();
  }
  return n;
}

std::string_view Tokenizer::id_to_token(uint32_t id) const {
  for (const AddedToken& t : parts_.added_tokens) {
    if (t.id == id) return t.content;
  }
  return parts_.model->id_to_token(id);
}

std::optional<uint32_t> Tokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& t : parts_.added_tokens) {
    if (t.content == token) return t.id;
  }
  return parts_.model->token_to_id(token);
}

bool Tokenizer::is_special_content(std::string_view token) const {
  for (const AddedToken& t : parts_.added_tokens) {
    if (t.special && t.content == token) return true;
  }
  return false;
}

bool Tokenizer::is_special(uint32_t id) const {
  for (const AddedToken& t : parts_.added_tokens) {
    if (t.id == id) return t.special;
  }
  return false;
}

std::string Tokenizer::decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (uint32_t id : ids) {
    const std::string_view t = id_to_token(id);
    if (t.empty() && !parts_.model->has_id(id)) continue;  // unknown id: HF skips it
    if (skip_special_tokens && is_special_content(t)) continue;
    tokens.emplace_back(t);
  }
  return decode_tokens(parts_.decoder.get(), std::move(tokens));
}

std::vector<bool> Tokenizer::word_continuations() const {
  std::string prefix;  // WordPiece: tokens starting with it continue; else tokens without it do
  const auto* wordpiece = dynamic_cast<const WordPiece*>(parts_.model.get());
  if (wordpiece) {
    prefix = wordpiece->options().continuing_subword_prefix;
  } else if (parts_.pre_tokenizer) {
    prefix = parts_.pre_tokenizer->word_start_marker();
  }
  if (prefix.empty()) return {};
  std::vector<bool> out(vocab_size_);
  for (size_t id = 0; id < out.size(); ++id) {
    const std::string_view t = id_to_token(uint32_t(id));
    const bool has_prefix = t.substr(0, prefix.size()) == prefix;
    out[id] = !is_special(uint32_t(id)) && !t.empty() && (wordpiece ? has_prefix : !has_prefix);
  }
  return out;
}

}  // namespace bertpt::tokenizer
