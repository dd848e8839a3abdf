#include "tokenizer/models/bpe.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/error.h"
#include "tokenizer/models/key_hash.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

inline size_t pair_slot(uint64_t key, size_t mask) { return size_t((key * 0x9E3779B97F4A7C15ull) >> 32) & mask; }

size_t table_capacity(size_t entries) {
  size_t capacity = 16;
  while (capacity < entries * 2) capacity <<= 1;
  return capacity;
}

// HF caches words shorter than 256 bytes (utils/cache.rs MAX_LENGTH), 10,000 per cache; more words
// make a difference on real corpora (a 5 MB mixed corpus: 20 -> 30 MB/s on one thread).
constexpr size_t kCacheMaxWordBytes = 256;
constexpr size_t kCacheCapacity = 50000;
constexpr size_t kCacheSlots = 65536;

std::atomic<uint64_t> g_next_cache_owner{1};

// One thread's cache of the words one Bpe instance has encoded: word -> ids. Full, it starts over
// (HF stops adding instead; the ids are the same either way, only which words are fast differs).
struct WordCache {
  struct Slot {
    uint32_t hash = 0;
    uint32_t key_offset = 0;
    uint32_t ids_offset = 0;
    uint16_t key_length = 0;
    uint16_t id_count = 0;
    bool used = false;
  };
  uint64_t owner = 0;
  std::vector<Slot> slots = std::vector<Slot>(kCacheSlots);
  std::string keys;
  std::vector<uint32_t> ids;
  size_t count = 0;

  const Slot* find(std::string_view word, uint32_t hash) const {
    for (size_t i = hash & (kCacheSlots - 1);; i = (i + 1) & (kCacheSlots - 1)) {
      const Slot& s = slots[i];
      if (!s.used) return nullptr;
      if (s.hash == hash && s.key_length == word.size() &&
          std::memcmp(keys.data() + s.key_offset, word.data(), word.size()) == 0) {
        return &s;
      }
    }
  }
  void insert(std::string_view word, uint32_t hash, const uint32_t* first, size_t n) {
    if (n > 0xFFFF) return;
    if (count >= kCacheCapacity) {
      std::fill(slots.begin(), slots.end(), Slot{});
      keys.clear();
      ids.clear();
      count = 0;
    }
    size_t i = hash & (kCacheSlots - 1);
    while (slots[i].used) i = (i + 1) & (kCacheSlots - 1);
    slots[i] = {hash, uint32_t(keys.size()), uint32_t(ids.size()), uint16_t(word.size()), uint16_t(n), true};
    keys.append(word);
    ids.insert(ids.end(), first, first + n);
    ++count;
  }
};

// This thread's caches, most recently used first; a few models at a time (a tokenizer and a copy).
constexpr size_t kCachesPerThread = 4;
thread_local std::vector<std::unique_ptr<WordCache>> t_caches;

WordCache& cache_for(uint64_t owner) {
  auto& caches = t_caches;
  if (!caches.empty() && caches.front()->owner == owner) return *caches.front();
  for (size_t i = 1; i < caches.size(); ++i) {
    if (caches[i]->owner == owner) {
      std::rotate(caches.begin(), caches.begin() + i, caches.begin() + i + 1);
      return *caches.front();
    }
  }
  if (caches.size() >= kCachesPerThread) caches.pop_back();
  caches.insert(caches.begin(), std::make_unique<WordCache>());
  caches.front()->owner = owner;
  return *caches.front();
}

// An entry of merge_all's queue: merge the symbol at `pos` with its right neighbour into `new_id`.
struct QueuedMerge {
  uint32_t rank, pos, new_id;
};
// std heap functions keep the largest on top: "larger" is the lower (rank, pos), as in word.rs.
inline bool after(const QueuedMerge& a, const QueuedMerge& b) {
  return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
}

struct Symbol {
  uint32_t id;
  int32_t prev, next;
  bool removed;
};

// `FILE: field "FIELD.SUB"`, the start of an error about part of the model object.
std::string field_name(const BpeSource& source, const std::string& sub) {
  return source.file + ": field \"" + (source.field.empty() ? sub : source.field + "." + sub) + "\"";
}

}  // namespace

Bpe::Bpe(std::vector<std::pair<std::string, uint32_t>> vocab,
         const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options, const BpeSource& source)
    : options_(std::move(options)), cache_owner_(g_next_cache_owner.fetch_add(1)) {
  if (options_.dropout && !(*options_.dropout >= 0.0f && *options_.dropout <= 1.0f)) {
    throw BadInput(field_name(source, "dropout") + " is " + std::to_string(*options_.dropout) + ", not in [0, 1]",
                   "dropout is the probability of skipping a merge (null for none)");
  }
  build_vocab(std::move(vocab), source);
  build_merges(merges, source);
}

Bpe::~Bpe() {
  auto& caches = t_caches;
  caches.erase(std::remove_if(caches.begin(), caches.end(), [&](const auto& c) { return c->owner == cache_owner_; }),
               caches.end());
}

void Bpe::build_vocab(std::vector<std::pair<std::string, uint32_t>> vocab, const BpeSource& source) {
  const std::string where = field_name(source, "vocab");
  if (vocab.size() >= kNone) throw BadInput(where + " is too large");
  uint32_t max_id = 0;
  for (const auto& [token, id] : vocab) max_id = std::max(max_id, id);
  // HF allows gaps between ids; an id far past the vocabulary size is refused before a table that
  // large is allocated.
  if (!vocab.empty() && size_t{max_id} >= 2 * vocab.size() + 1024) {
    throw BadInput(where + " has id " + std::to_string(max_id) + ", out of range for a vocabulary of " +
                       std::to_string(vocab.size()) + " tokens",
                   "ids should run from 0 to the vocabulary size - 1");
  }
  by_id_.assign(vocab.empty() ? 0 : size_t{max_id} + 1, {0, kNone});
  vocab_slots_.assign(table_capacity(vocab.size()), {});
  vocab_mask_ = vocab_slots_.size() - 1;
  for (const auto& [token, id] : vocab) {
    if (by_id_[id].second != kNone) {
      throw BadInput(where + " gives id " + std::to_string(id) + " twice ('" + std::string(id_to_token(id)) +
                         "' and '" + token + "')",
                     "every token needs its own id");
    }
    if (arena_.size() + token.size() >= kNone) throw BadInput(where + " is too large");
    if (find(token) != kNone) throw BadInput(where + " lists token '" + token + "' twice");
    by_id_[id] = {uint32_t(arena_.size()), uint32_t(token.size())};
    arena_ += token;
    const uint32_t h = key_hash(token.data(), token.size());
    size_t i = h & vocab_mask_;
    while (vocab_slots_[i].id != kNone) i = (i + 1) & vocab_mask_;
    vocab_slots_[i] = {h, id};
  }
  count_ = vocab.size();
  char_ids_.assign(0x800, kNone);
  std::string utf8;
  for (uint32_t cp = 0; cp < 0x800; ++cp) {
    utf8 = cp < 0x80 ? std::string(1, char(cp)) : std::string{char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))};
    char_ids_[cp] = find(utf8);
  }
  byte_fallback_ids_.assign(256, kNone);
  for (uint32_t b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_fallback_ids_[b] = find(name);
  }
  if (options_.unk_token) {
    const uint32_t unk = find(*options_.unk_token);
    if (unk != kNone) unk_id_ = unk;
  }
}

void Bpe::build_merges(const std::vector<std::pair<std::string, std::string>>& merges, const BpeSource& source) {
  const size_t prefix_length = options_.continuing_subword_prefix ? options_.continuing_subword_prefix->size() : 0;
  merge_slots_.assign(table_capacity(merges.size()), {});
  merge_mask_ = merge_slots_.size() - 1;
  merges_.reserve(merges.size());
  std::string joined;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left, right] = merges[rank];
    const std::string where = field_name(source, "merges[" + std::to_string(rank) + "]");
    const char* hint = "each merge joins two tokens of the vocabulary into a third one also in it";
    const uint32_t left_id = find(left), right_id = find(right);
    if (left_id == kNone) throw BadInput(where + " names '" + left + "', which is not in the vocabulary", hint);
    if (right_id == kNone) throw BadInput(where + " names '" + right + "', which is not in the vocabulary", hint);
    // HF joins the left token and the right one less continuing_subword_prefix's length in bytes.
    if (right.size() < prefix_length) {
      throw BadInput(where + " names '" + right + "', shorter than the continuing_subword_prefix", hint);
    }
    joined.assign(left).append(right, prefix_length);
    const uint32_t new_id = find(joined);
    if (new_id == kNone) throw BadInput(where + " makes '" + joined + "', which is not in the vocabulary", hint);
    const uint64_t key = (uint64_t{left_id} << 32) | right_id;
    size_t i = pair_slot(key, merge_mask_);
    while (merge_slots_[i].key != ~0ull && merge_slots_[i].key != key) i = (i + 1) & merge_mask_;
    // A pair listed twice keeps its last rank (HF collects the merges into a map).
    merge_slots_[i] = {key, {uint32_t(rank), new_id}};
    merges_.emplace_back(left_id, right_id);
  }
}

uint32_t Bpe::find(std::string_view token) const {
  const uint32_t h = key_hash(token.data(), token.size());
  for (size_t i = h & vocab_mask_;; i = (i + 1) & vocab_mask_) {
    const VocabSlot& s = vocab_slots_[i];
    if (s.id == kNone) return kNone;
    if (s.hash == h && by_id_[s.id].second == token.size() &&
        std::memcmp(arena_.data() + by_id_[s.id].first, token.data(), token.size()) == 0) {
      return s.id;
    }
  }
}

Bpe::Merge Bpe::find_merge(uint32_t left, uint32_t right) const {
  const uint64_t key = (uint64_t{left} << 32) | right;
  for (size_t i = pair_slot(key, merge_mask_);; i = (i + 1) & merge_mask_) {
    const MergeSlot& s = merge_slots_[i];
    if (s.key == key) return s.merge;
    if (s.key == ~0ull) return {};
  }
}

std::optional<uint32_t> Bpe::token_to_id(std::string_view token) const {
  const uint32_t id = find(token);
  if (id == kNone) return std::nullopt;
  return id;
}

std::string_view Bpe::id_to_token(uint32_t id) const {
  if (!has_id(id)) return {};
  return {arena_.data() + by_id_[id].first, by_id_[id].second};
}

std::optional<uint32_t> Bpe::unk_id() const { return unk_id_; }

uint32_t Bpe::require_unk() const {
  if (unk_id_) return *unk_id_;
  throw BadInput("BPE model: its unk_token '" + *options_.unk_token + "' is not in its vocabulary",
                 "add the token to model.vocab, or set unk_token to null");
}

void Bpe::encode_word(std::string_view word, std::vector<uint32_t>& ids) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    const uint32_t whole = find(word);
    if (whole != kNone) {
      ids.push_back(whole);
      return;
    }
  }
  if (word.size() >= kCacheMaxWordBytes) {
    tokenize(word, ids);
    return;
  }
  WordCache& cache = cache_for(cache_owner_);
  const uint32_t h = key_hash(word.data(), word.size());
  if (const WordCache::Slot* hit = cache.find(word, h)) {
    ids.insert(ids.end(), cache.ids.begin() + hit->ids_offset, cache.ids.begin() + hit->ids_offset + hit->id_count);
    return;
  }
  const size_t first = ids.size();
  tokenize(word, ids);
  cache.insert(word, h, ids.data() + first, ids.size() - first);
}

void Bpe::tokenize(std::string_view word, std::vector<uint32_t>& ids) const {
  thread_local std::vector<uint32_t> symbols;
  symbols.clear();
  initial_symbols(word, symbols);
  merge_all(symbols);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
}

// One symbol per character, as model.rs merge_word: the character with the prefix (all but the
// first) and the suffix (the last); unknown -> its bytes' <0xNN> tokens (byte_fallback, all present)
// or unk_token. A pending unk is written when the next known character comes (or at the end), so
// byte-fallback tokens met in between go before it, as in HF.
void Bpe::initial_symbols(std::string_view word, std::vector<uint32_t>& symbols) const {
  thread_local std::string piece;
  const auto* p = reinterpret_cast<const unsigned char*>(word.data());
  const std::string* prefix = options_.continuing_subword_prefix ? &*options_.continuing_subword_prefix : nullptr;
  const std::string* suffix = options_.end_of_word_suffix ? &*options_.end_of_word_suffix : nullptr;
  bool unk_pending = false;
  for (size_t i = 0, len = 0; i < word.size(); i += len) {
    const uint32_t cp = unicode::decode_utf8(p + i, word.size() - i, len);
    const bool first = i == 0, last = i + len == word.size();
    std::string_view looked_up = word.substr(i, len);
    uint32_t id;
    if ((first || !prefix) && (!last || !suffix)) {
      id = cp < char_ids_.size() ? char_ids_[cp] : find(looked_up);
    } else {
      piece.clear();
      if (!first && prefix) piece += *prefix;
      piece.append(looked_up);
      if (last && suffix) piece += *suffix;
      looked_up = piece;
      id = find(looked_up);
    }
    if (id != kNone) {
      if (unk_pending) symbols.push_back(require_unk());
      unk_pending = false;
      symbols.push_back(id);
      continue;
    }
    const auto fallback_id = [&](char b) { return byte_fallback_ids_[static_cast<unsigned char>(b)]; };
    if (options_.byte_fallback &&
        std::all_of(looked_up.begin(), looked_up.end(), [&](char b) { return fallback_id(b) != kNone; })) {
      for (const char b : looked_up) symbols.push_back(fallback_id(b));
      continue;
    }
    if (options_.unk_token) {
      if (!unk_pending || !options_.fuse_unk) {
        const uint32_t unk = require_unk();
        if (unk_pending) symbols.push_back(unk);
      }
      unk_pending = true;
    }
  }
  if (unk_pending) symbols.push_back(require_unk());
}

// word.rs merge_all without dropout: a min-queue of (rank, position) over the pairs that have a
// merge; a popped entry is skipped when its left symbol is gone, has no right neighbour, or the pair
// there no longer merges into the entry's token.
void Bpe::merge_all(std::vector<uint32_t>& ids) const {
  if (ids.size() < 2 || merges_.empty()) return;
  thread_local std::vector<Symbol> symbols;
  thread_local std::vector<QueuedMerge> queue;
  symbols.clear();
  queue.clear();
  const auto n = int32_t(ids.size());
  for (int32_t i = 0; i < n; ++i) symbols.push_back({ids[i], i - 1, i + 1 < n ? i + 1 : -1, false});
  for (int32_t i = 0; i + 1 < n; ++i) {
    const Merge m = find_merge(ids[i], ids[i + 1]);
    if (m.rank != kNone) queue.push_back({m.rank, uint32_t(i), m.new_id});
  }
  std::make_heap(queue.begin(), queue.end(), after);
  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end(), after);
    const QueuedMerge top = queue.back();
    queue.pop_back();
    Symbol& current = symbols[top.pos];
    if (current.removed || current.next == -1) continue;
    Symbol& right = symbols[current.next];
    if (find_merge(current.id, right.id).new_id != top.new_id) continue;
    current.id = top.new_id;
    right.removed = true;
    current.next = right.next;
    if (right.next != -1) symbols[right.next].prev = int32_t(top.pos);
    if (current.prev >= 0) {
      const Merge m = find_merge(symbols[current.prev].id, current.id);
      if (m.rank != kNone) {
        queue.push_back({m.rank, uint32_t(current.prev), m.new_id});
        std::push_heap(queue.begin(), queue.end(), after);
      }
    }
    if (current.next != -1) {
      const Merge m = find_merge(current.id, symbols[current.next].id);
      if (m.rank != kNone) {
        queue.push_back({m.rank, top.pos, m.new_id});
        std::push_heap(queue.begin(), queue.end(), after);
      }
    }
  }
  ids.clear();
  for (const Symbol& s : symbols) {
    if (!s.removed) ids.push_back(s.id);
  }
}

}  // namespace bertpt::tokenizer

namespace bertpt::tokenizer {
namespace {

std::optional<std::string> optional_string(const JsonFields& f, const char* key) {
  if (const std::optional<JsonValue> v = f.optional(key)) return v->str();
  return std::nullopt;
}

// merges as HF reads them: all [left, right] pairs, or all "left right" strings (split at the one
// space; lines starting "#version" skipped, as in a merges.txt).
std::vector<std::pair<std::string, std::string>> read_merges(const JsonFields& f) {
  const JsonValue merges = f.value("merges");
  const nlohmann::json& array = merges.array();
  const bool legacy = !array.empty() && array.front().is_string();
  const char* hint = legacy ? "the older form is [\"left right\", ...], each entry two tokens and one space"
                            : "merges are [[\"left\", \"right\"], ...] (or all \"left right\" strings)";
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i) {
    const JsonValue entry = merges.element(i);
    if (legacy) {
      if (!entry.json().is_string()) entry.fail("is " + json_type_in_words(entry.json()) + ", expected a string", hint);
      const std::string line = entry.str();
      if (line.rfind("#version", 0) == 0) continue;
      const size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) {
        entry.fail("is '" + line + "', not two tokens separated by one space", hint);
      }
      out.emplace_back(line.substr(0, space), line.substr(space + 1));
    } else {
      if (!entry.json().is_array() || entry.json().size() != 2) {
        entry.fail("is " + json_type_in_words(entry.json()) + ", expected a pair of tokens", hint);
      }
      out.emplace_back(entry.element(0).str(), entry.element(1).str());
    }
  }
  return out;
}

// A float as the JSON number serde writes for an f32: the shortest decimal that reads back as it.
double f32_as_json_number(float value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  *end = '\0';
  return std::strtod(text, nullptr);
}

}  // namespace

std::shared_ptr<const Bpe> Bpe::from_json(const JsonFields& f) {
  BpeOptions o;
  if (const std::optional<JsonValue> v = f.optional("dropout")) o.dropout = float(v->number());
  o.unk_token = optional_string(f, "unk_token");
  o.continuing_subword_prefix = optional_string(f, "continuing_subword_prefix");
  o.end_of_word_suffix = optional_string(f, "end_of_word_suffix");
  o.fuse_unk = f.boolean_or("fuse_unk", false);
  o.byte_fallback = f.boolean_or("byte_fallback", false);
  o.ignore_merges = f.boolean_or("ignore_merges", false);
  std::vector<std::pair<std::string, uint32_t>> vocab;
  for (const auto& [token, id] : f.object("vocab").entries()) vocab.emplace_back(token, json_token_id(id));
  // The model object's own path: f.name("x") is "PATH.x" ("x" at the root).
  std::string field = f.name("x");
  field.resize(field.size() >= 2 ? field.size() - 2 : 0);
  const BpeSource source{f.file(), field};
  return std::make_shared<const Bpe>(std::move(vocab), read_merges(f), std::move(o), source);
}

nlohmann::ordered_json Bpe::to_json() const {
  const auto string_or_null = [](const std::optional<std::string>& s) -> nlohmann::ordered_json {
    return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json model;
  model["type"] = "BPE";
  model["dropout"] = options_.dropout ? nlohmann::ordered_json(f32_as_json_number(*options_.dropout)) : nullptr;
  model["unk_token"] = string_or_null(options_.unk_token);
  model["continuing_subword_prefix"] = string_or_null(options_.continuing_subword_prefix);
  model["end_of_word_suffix"] = string_or_null(options_.end_of_word_suffix);
  model["fuse_unk"] = options_.fuse_unk;
  model["byte_fallback"] = options_.byte_fallback;
  model["ignore_merges"] = options_.ignore_merges;
  model["vocab"] = vocab_json(*this);
  nlohmann::ordered_json merges = nlohmann::ordered_json::array();
  for (size_t rank = 0; rank < merges_.size(); ++rank) {
    const auto [left, right] = merges_[rank];
    // HF writes its merge map sorted by rank: a pair listed twice appears once, at its last rank.
    if (find_merge(left, right).rank != rank) continue;
    merges.push_back(nlohmann::ordered_json::array({id_to_token(left), id_to_token(right)}));
  }
  model["merges"] = std::move(merges);
  return model;
}

}  // namespace bertpt::tokenizer
