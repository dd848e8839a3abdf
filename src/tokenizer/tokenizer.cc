#include "tokenizer/tokenizer.h"

#include <cstring>

#include "common/error.h"
#include "tokenizer/pre_tokenizer.h"

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

}  // namespace

const PostProcessor::Special* PostProcessor::find(const std::string& name) const {
  for (const Special& s : special_tokens) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Tokenizer::Tokenizer(Parts parts) : parts_(std::move(parts)) {
  if (parts_.normalizer) normalizer_.emplace(*parts_.normalizer);
  int first = -2;
  for (const AddedToken& t : parts_.added_tokens) {
    if (t.content.empty()) continue;  // HF never matches an empty token
    (t.normalized ? has_normalized_added_ : has_raw_added_) = true;
    const auto b = static_cast<unsigned char>(t.content[0]);
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

  vocab_size_ = parts_.model.size();
  for (size_t i = 0; i < parts_.added_tokens.size(); ++i) {
    const AddedToken& t = parts_.added_tokens[i];
    bool seen = parts_.model.token_to_id(t.content).has_value();
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
  special_ids_.unk = parts_.model.unk_id();
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
  parts.normalizer = normalizer;
  WordPieceOptions wp;
  wp.unk_token = roles.unk;
  parts.model = WordPiece::from_tokens(std::move(vocab), wp, source);
  for (const std::string& s : special_tokens) {
    const auto id = parts.model.token_to_id(s);
    if (!id) throw BadInput(source + ": special token '" + s + "' is not in the vocabulary");
    AddedToken t;
    t.id = *id;
    t.content = s;
    parts.added_tokens.push_back(std::move(t));
  }
  PostProcessor pp;
  for (const std::string* name : {&roles.cls, &roles.sep}) {
    const auto id = parts.model.token_to_id(*name);
    if (!id) {
      throw BadInput(source + ": '" + *name + "' is not in the vocabulary",
                     "a BERT tokenizer needs the [CLS] and [SEP] tokens for its template");
    }
    pp.special_tokens.push_back({*name, {*id}, {*name}});
  }
  using Piece = PostProcessor::Piece;
  pp.single = {Piece{false, 0, roles.cls, 0}, Piece{true, 0, "", 0}, Piece{false, 0, roles.sep, 0}};
  pp.pair = {Piece{false, 0, roles.cls, 0}, Piece{true, 0, "", 0}, Piece{false, 0, roles.sep, 0}, Piece{true, 1, "", 1},
             Piece{false, 0, roles.sep, 1}};
  parts.post_processor = std::move(pp);
  parts.decoder = WordPieceDecoderOptions{};
  parts.roles = roles;
  return Tokenizer(std::move(parts));
}

void Tokenizer::pre_tokenize(std::string_view normalized, std::vector<std::string_view>& words) const {
  if (parts_.bert_pre_tokenizer) {
    bert_pre_tokenize(normalized, words);
  } else if (!normalized.empty()) {
    words.push_back(normalized);
  }
}

bool Tokenizer::find_added(std::string_view text, size_t from, bool normalized, size_t& pos, size_t& len,
                           uint32_t& id) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = from; i < n; ++i) {
    if (single_first_byte_ >= 0) {
      const void* hit = std::memchr(p + i, single_first_byte_, n - i);
      if (!hit) return false;
      i = static_cast<const unsigned char*>(hit) - p;
    } else if (!added_first_byte_[p[i]]) {
      continue;
    }
    size_t best = 0;
    for (const AddedToken& t : parts_.added_tokens) {
      if (t.normalized != normalized || t.content.size() <= best || t.content.size() > n - i) {
        continue;
      }
      if (std::memcmp(p + i, t.content.data(), t.content.size()) == 0) {
        best = t.content.size();
        id = t.id;
      }
    }
    if (best) {
      pos = i;
      len = best;
      return true;
    }
  }
  return false;
}

bool Tokenizer::encode_normalized(std::string_view normalized, std::vector<uint32_t>& ids, size_t stop_at) const {
  thread_local std::vector<std::string_view> words;
  words.clear();
  pre_tokenize(normalized, words);
  for (std::string_view w : words) {
    parts_.model.encode_word(w, ids);
    if (ids.size() >= stop_at) return true;
  }
  return false;
}

bool Tokenizer::encode_plain(std::string_view text, std::vector<uint32_t>& ids, size_t stop_at) const {
  if (text.empty()) return false;
  thread_local std::string normalized;
  std::string_view norm = text;
  if (normalizer_) {
    normalized.clear();
    normalizer_->normalize(text, normalized);
    norm = normalized;
  }
  if (!has_normalized_added_) return encode_normalized(norm, ids, stop_at);
  size_t i = 0, pos, len;
  uint32_t id;
  while (find_added(norm, i, true, pos, len, id)) {
    if (encode_normalized(norm.substr(i, pos - i), ids, stop_at)) return true;
    ids.push_back(id);  // added tokens never stop it, as in HF
    i = pos + len;
  }
  return encode_normalized(norm.substr(i), ids, stop_at);
}

bool Tokenizer::encode_sequence(std::string_view text, std::vector<uint32_t>& ids, size_t stop_at) const {
  if (!has_raw_added_) return encode_plain(text, ids, stop_at);
  size_t i = 0, pos, len;
  uint32_t id;
  while (find_added(text, i, false, pos, len, id)) {
    if (encode_plain(text.substr(i, pos - i), ids, stop_at)) return true;
    ids.push_back(id);
    i = pos + len;
  }
  return encode_plain(text.substr(i), ids, stop_at);
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
  if (!add_special_tokens || !parts_.post_processor) {
    concatenate(true, ids, type_ids, append);
    return;
  }
  apply_template(*parts_.post_processor, parts_.post_processor->pair, ids, type_ids, append);
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
  return parts_.model.id_to_token(id);
}

std::optional<uint32_t> Tokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& t : parts_.added_tokens) {
    if (t.content == token) return t.id;
  }
  return parts_.model.token_to_id(token);
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
  std::vector<std::string_view> tokens;
  tokens.reserve(ids.size());
  for (uint32_t id : ids) {
    const std::string_view t = id_to_token(id);
    if (t.empty() && !parts_.model.has_id(id)) continue;  // unknown id: HF skips it
    if (skip_special_tokens && is_special_content(t)) continue;
    tokens.push_back(t);
  }
  std::string out;
  if (parts_.decoder) {
    wordpiece_decode(tokens, *parts_.decoder, out);
  } else {
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i) out += ' ';
      out += tokens[i];
    }
  }
  return out;
}

}  // namespace bertpt::tokenizer
