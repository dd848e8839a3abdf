#include "tokenizer/tokenizer.h"

#include <cstring>

#include "common/error.h"
#include "tokenizer/pre_tokenizer.h"

namespace bertpt::tokenizer {

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

Tokenizer Tokenizer::bert(std::vector<std::string> vocab, const NormalizerOptions& normalizer,
                          const std::vector<std::string>& special_tokens,
                          const BertSpecialTokens& roles, const std::string& source) {
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
  pp.pair = {Piece{false, 0, roles.cls, 0}, Piece{true, 0, "", 0}, Piece{false, 0, roles.sep, 0},
             Piece{true, 1, "", 1}, Piece{false, 0, roles.sep, 1}};
  parts.post_processor = std::move(pp);
  parts.decoder = WordPieceDecoderOptions{};
  parts.roles = roles;
  return Tokenizer(std::move(parts));
}

void Tokenizer::pre_tokenize(std::string_view normalized,
                             std::vector<std::string_view>& words) const {
  if (parts_.bert_pre_tokenizer) {
    bert_pre_tokenize(normalized, words);
  } else if (!normalized.empty()) {
    words.push_back(normalized);
  }
}

bool Tokenizer::find_added(std::string_view text, size_t from, bool normalized, size_t& pos,
                           size_t& len, uint32_t& id) const {
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

void Tokenizer::encode_normalized(std::string_view normalized, std::vector<uint32_t>& ids) const {
  thread_local std::vector<std::string_view> words;
  words.clear();
  pre_tokenize(normalized, words);
  for (std::string_view w : words) parts_.model.encode_word(w, ids);
}

void Tokenizer::encode_plain(std::string_view text, std::vector<uint32_t>& ids) const {
  if (text.empty()) return;
  thread_local std::string normalized;
  std::string_view norm = text;
  if (normalizer_) {
    normalized.clear();
    normalizer_->normalize(text, normalized);
    norm = normalized;
  }
  if (!has_normalized_added_) {
    encode_normalized(norm, ids);
    return;
  }
  size_t i = 0, pos, len;
  uint32_t id;
  while (find_added(norm, i, true, pos, len, id)) {
    encode_normalized(norm.substr(i, pos - i), ids);
    ids.push_back(id);
    i = pos + len;
  }
  encode_normalized(norm.substr(i), ids);
}

void Tokenizer::encode_sequence(std::string_view text, std::vector<uint32_t>& ids) const {
  if (!has_raw_added_) {
    encode_plain(text, ids);
    return;
  }
  size_t i = 0, pos, len;
  uint32_t id;
  while (find_added(text, i, false, pos, len, id)) {
    encode_plain(text.substr(i, pos - i), ids);
    ids.push_back(id);
    i = pos + len;
  }
  encode_plain(text.substr(i), ids);
}

void Tokenizer::encode(std::string_view text, std::vector<uint32_t>& ids,
                       bool add_special_tokens) const {
  if (!add_special_tokens || !parts_.post_processor) {
    encode_sequence(text, ids);
    return;
  }
  const PostProcessor& pp = *parts_.post_processor;
  for (const PostProcessor::Piece& piece : pp.single) {
    if (piece.is_sequence) {
      encode_sequence(text, ids);  // a single-sequence template only names $A
    } else {
      const auto& special = pp.find(piece.special)->ids;
      ids.insert(ids.end(), special.begin(), special.end());
    }
  }
}

void Tokenizer::encode_pair(std::string_view a, std::string_view b, std::vector<uint32_t>& ids,
                            std::vector<uint32_t>* type_ids, bool add_special_tokens) const {
  auto add_types = [&](size_t from, uint32_t type) {
    if (type_ids) type_ids->resize(type_ids->size() + (ids.size() - from), type);
  };
  if (!add_special_tokens || !parts_.post_processor) {
    size_t from = ids.size();
    encode_sequence(a, ids);
    add_types(from, 0);
    from = ids.size();
    encode_sequence(b, ids);
    add_types(from, 1);
    return;
  }
  const PostProcessor& pp = *parts_.post_processor;
  for (const PostProcessor::Piece& piece : pp.pair) {
    const size_t from = ids.size();
    if (piece.is_sequence) {
      encode_sequence(piece.sequence == 0 ? a : b, ids);
    } else {
      const auto& special = pp.find(piece.special)->ids;
      ids.insert(ids.end(), special.begin(), special.end());
    }
    add_types(from, piece.type_id);
  }
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
