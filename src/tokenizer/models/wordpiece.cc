#include "tokenizer/models/wordpiece.h"

#include <cstring>

#include "common/error.h"
#include "tokenizer/models/key_hash.h"

namespace bertpt::tokenizer {
namespace {

inline bool is_continuation_byte(unsigned char b) { return (b & 0xC0) == 0x80; }

}  // namespace

WordPiece WordPiece::from_tokens(std::vector<std::string> tokens, WordPieceOptions options, const std::string& source) {
  std::vector<std::pair<std::string, uint32_t>> entries;
  entries.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    entries.emplace_back(std::move(tokens[i]), static_cast<uint32_t>(i));
  }
  WordPiece wp;
  wp.options_ = std::move(options);
  wp.build(std::move(entries), source, true);
  return wp;
}

WordPiece WordPiece::from_map(std::vector<std::pair<std::string, uint32_t>> entries, WordPieceOptions options,
                              const std::string& source) {
  WordPiece wp;
  wp.options_ = std::move(options);
  wp.build(std::move(entries), source, false);
  return wp;
}

void WordPiece::build(std::vector<std::pair<std::string, uint32_t>> entries, const std::string& source,
                      bool entries_are_lines) {
  auto where = [&](uint32_t id) {
    return entries_are_lines ? at(source, id + 1ull) : source + ": id " + std::to_string(id);
  };
  if (entries.size() >= kNoToken) throw BadInput(source + ": vocabulary too large");
  size_t capacity = 16;
  while (capacity < entries.size() * 2) capacity <<= 1;
  whole_.slots.assign(capacity, {});
  whole_.mask = capacity - 1;
  continuation_.slots.assign(capacity, {});
  continuation_.mask = capacity - 1;
  // Ids are dense, 0..n-1 (each once, checked below): a larger id names its token, before any
  // table the size of the id is allocated (an id of 4e9 asked for gigabytes).
  const std::pair<std::string, uint32_t>* largest = nullptr;
  for (const auto& e : entries) {
    if (!largest || e.second > largest->second) largest = &e;
  }
  if (largest && size_t{largest->second} >= entries.size()) {
    throw BadInput(source + ": token '" + largest->first + "' has id " + std::to_string(largest->second) +
                       ", but the vocabulary has " + std::to_string(entries.size()) + " tokens",
                   "ids must be 0 .. size-1, each used once (as Hugging Face's trainers write them): is a token "
                   "missing, or an id wrong?");
  }
  const uint32_t max_id = largest ? largest->second : 0;
  by_id_.assign(entries.empty() ? 0 : size_t{max_id} + 1, {0, kNoToken});
  const std::string& prefix = options_.continuing_subword_prefix;
  for (const auto& [token, id] : entries) {
    if (by_id_[id].second != kNoToken) {
      const std::string_view other(arena_.data() + by_id_[id].first, by_id_[id].second);
      throw BadInput(where(id) + ": id " + std::to_string(id) + " is used twice ('" + std::string(other) + "' and '" +
                     token + "')");
    }
    if (token.size() >= kNoToken || arena_.size() + token.size() >= kNoToken) {
      throw BadInput(where(id) + ": vocabulary too large");
    }
    const auto offset = static_cast<uint32_t>(arena_.size());
    const auto length = static_cast<uint32_t>(token.size());
    if (find(whole_, token.data(), token.size()) != kNoToken) {
      throw BadInput(where(id) + ": duplicate token '" + token + "' (also id " +
                         std::to_string(find(whole_, token.data(), token.size())) + ")",
                     "every token must appear once in the vocabulary");
    }
    arena_ += token;
    by_id_[id] = {offset, length};
    insert(whole_, arena_, offset, length, id);
    if (!prefix.empty() && token.size() > prefix.size() && token.compare(0, prefix.size(), prefix) == 0) {
      insert(continuation_, arena_, offset + static_cast<uint32_t>(prefix.size()),
             length - static_cast<uint32_t>(prefix.size()), id);
    }
  }
  count_ = entries.size();
  const uint32_t unk = find(whole_, options_.unk_token.data(), options_.unk_token.size());
  if (unk == kNoToken) {
    throw BadInput(source + ": the unknown token '" + options_.unk_token + "' is not in the vocabulary",
                   "WordPiece needs it for words it cannot split");
  }
  unk_id_ = unk;
}

void WordPiece::insert(Table& table, const std::string& arena, uint32_t offset, uint32_t length, uint32_t id) {
  const uint32_t h = key_hash(arena.data() + offset, length);
  size_t i = h & table.mask;
  while (table.slots[i].id != kNoToken) i = (i + 1) & table.mask;
  table.slots[i] = {h, id, offset, length};
  table.max_key_length = std::max<size_t>(table.max_key_length, length);
}

uint32_t WordPiece::find(const Table& table, const char* key, size_t length) const {
  if (table.slots.empty()) return kNoToken;
  const uint32_t h = key_hash(key, length);
  for (size_t i = h & table.mask;; i = (i + 1) & table.mask) {
    const Table::Slot& s = table.slots[i];
    if (s.id == kNoToken) return kNoToken;
    if (s.hash == h && s.length == length && std::memcmp(arena_.data() + s.offset, key, length) == 0) {
      return s.id;
    }
  }
}

void WordPiece::encode_word(std::string_view word, std::vector<uint32_t>& ids) const {
  if (word.size() > options_.max_input_chars_per_word) {
    // Bytes exceed the limit; count characters (HF counts chars, not bytes).
    size_t chars = 0;
    for (unsigned char b : word) chars += !is_continuation_byte(b);
    if (chars > options_.max_input_chars_per_word) {
      ids.push_back(unk_id_);
      return;
    }
  }
  const size_t first = ids.size();
  const bool no_prefix = options_.continuing_subword_prefix.empty();
  const char* p = word.data();
  const size_t n = word.size();
  size_t start = 0;
  while (start < n) {
    const Table& table = (start == 0 || no_prefix) ? whole_ : continuation_;
    size_t end = std::min(n, start + table.max_key_length);
    while (end < n && is_continuation_byte(static_cast<unsigned char>(p[end]))) --end;
    uint32_t id = kNoToken;
    while (end > start) {
      id = find(table, p + start, end - start);
      if (id != kNoToken) break;
      do {
        --end;
      } while (end > start && is_continuation_byte(static_cast<unsigned char>(p[end])));
    }
    if (id == kNoToken) {
      ids.resize(first);
      ids.push_back(unk_id_);
      return;
    }
    ids.push_back(id);
    start = end;
  }
}

std::optional<uint32_t> WordPiece::token_to_id(std::string_view token) const {
  const uint32_t id = find(whole_, token.data(), token.size());
  if (id == kNoToken) return std::nullopt;
  return id;
}

std::string_view WordPiece::id_to_token(uint32_t id) const {
  if (!has_id(id)) return {};
  return {arena_.data() + by_id_[id].first, by_id_[id].second};
}

}  // namespace bertpt::tokenizer

namespace bertpt::tokenizer {

std::shared_ptr<const WordPiece> WordPiece::from_json(const JsonFields& f) {
  WordPieceOptions o;
  o.unk_token = f.str_or("unk_token", o.unk_token);
  o.continuing_subword_prefix = f.str_or("continuing_subword_prefix", o.continuing_subword_prefix);
  if (const std::optional<JsonValue> v = f.optional("max_input_chars_per_word")) o.max_input_chars_per_word = v->u32();
  const std::vector<std::pair<std::string, JsonValue>> vocab = f.object("vocab").entries();
  std::vector<std::pair<std::string, uint32_t>> entries;
  entries.reserve(vocab.size());
  for (const auto& [token, id] : vocab) entries.emplace_back(token, json_token_id(id));
  return std::make_shared<const WordPiece>(from_map(std::move(entries), o, f.file() + ": " + f.name("vocab")));
}

nlohmann::ordered_json WordPiece::to_json() const {
  nlohmann::ordered_json model;
  model["type"] = "WordPiece";
  model["unk_token"] = options_.unk_token;
  model["continuing_subword_prefix"] = options_.continuing_subword_prefix;
  model["max_input_chars_per_word"] = options_.max_input_chars_per_word;
  model["vocab"] = vocab_json(*this);
  return model;
}

}  // namespace bertpt::tokenizer
