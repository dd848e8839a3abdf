#include "tokenizer/trainer.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "common/hash.h"
#include "text/utf8.h"

namespace bertpt::tokenizer {

namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

inline uint64_t pair_key(uint32_t left, uint32_t right) { return (static_cast<uint64_t>(left) << 32) | right; }

// Decodes one code point of valid UTF-8 and advances `p`. Bytes that do not start a valid sequence
// are returned as themselves (the trainer's input is valid UTF-8; this only keeps it memory-safe).
inline uint32_t next_code_point(const unsigned char*& p, const unsigned char* end) {
  const uint32_t b0 = *p++;
  if (b0 < 0x80) return b0;
  int extra = b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC0 ? 1 : 0;
  if (extra == 0 || end - p < extra) return b0;
  uint32_t cp = b0 & (0x3F >> extra);
  for (int i = 0; i < extra; ++i) cp = (cp << 6) | (*p++ & 0x3F);
  return cp > kMaxCodePoint ? 0xFFFD : cp;
}

// Open addressing map from a pair key to a dense pair index. The pair table only ever grows during
// training, so there is no erase.
class PairIndex {
 public:
  explicit PairIndex(size_t expected) {
    size_t slots = 1024;
    while (slots < expected * 2) slots *= 2;
    slots_.assign(slots, Slot{0, kNone});
  }

  // The index of `key`, inserting `next` when absent. `inserted` tells which happened.
  uint32_t find_or_insert(uint64_t key, uint32_t next, bool& inserted) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t s = mix64(key) & mask;; s = (s + 1) & mask) {
      Slot& slot = slots_[s];
      if (slot.index == kNone) {
        slot = Slot{key, next};
        ++size_;
        inserted = true;
        return next;
      }
      if (slot.key == key) {
        inserted = false;
        return slot.index;
      }
    }
  }

  uint32_t find(uint64_t key) const {
    const size_t mask = slots_.size() - 1;
    for (size_t s = mix64(key) & mask;; s = (s + 1) & mask) {
      const Slot& slot = slots_[s];
      if (slot.index == kNone) return kNone;
      if (slot.key == key) return slot.index;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    uint32_t index;
  };

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{0, kNone});
    const size_t mask = slots_.size() - 1;
    for (const Slot& o : old) {
      if (o.index == kNone) continue;
      size_t s = mix64(o.key) & mask;
      while (slots_[s].index != kNone) s = (s + 1) & mask;
      slots_[s] = o;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// The pair-count changes of one merge step, summed per pair before they touch the global table
// (a step's pairs are few and stay in cache; the global table is large). For pairs that gained
// occurrences it also chains the words where they were formed, in visit order.
class StepChanges {
 public:
  struct Entry {
    uint64_t key;
    int64_t delta;
    uint32_t first;  // head of this pair's chain in links_ (kNone: no word formed it)
    uint32_t last;
  };

  StepChanges() { slots_.assign(256, kNone); }

  void add(uint64_t key, int64_t delta) { entry(key).delta += delta; }

  // A merge formed pair `key` in word `w`: +delta, and w joins the pair's word list.
  void formed(uint64_t key, int64_t delta, uint32_t w) {
    Entry& e = entry(key);
    e.delta += delta;
    if (e.last != kNone && links_[e.last].word == w) return;  // same word again: listed once
    const uint32_t link = static_cast<uint32_t>(links_.size());
    links_.push_back(Link{w, kNone});
    if (e.last == kNone) {
      e.first = link;
    } else {
      links_[e.last].next = link;
    }
    e.last = link;
  }

  const std::vector<Entry>& entries() const { return entries_; }

  // The words chained for `e`, appended to `out`.
  void words_of(const Entry& e, std::vector<uint32_t>& out) const {
    for (uint32_t l = e.first; l != kNone; l = links_[l].next) out.push_back(links_[l].word);
  }

  void clear() {
    if (used_slots_.size() * 4 < slots_.size()) {
      for (uint32_t s : used_slots_) slots_[s] = kNone;
    } else {
      std::fill(slots_.begin(), slots_.end(), kNone);
    }
    used_slots_.clear();
    entries_.clear();
    links_.clear();
  }

 private:
  struct Link {
    uint32_t word;
    uint32_t next;
  };

  Entry& entry(uint64_t key) {
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    size_t s = mix64(key) & mask;
    for (;; s = (s + 1) & mask) {
      const uint32_t v = slots_[s];
      if (v == kNone) break;
      if (entries_[v].key == key) return entries_[v];
    }
    slots_[s] = static_cast<uint32_t>(entries_.size());
    used_slots_.push_back(static_cast<uint32_t>(s));
    entries_.push_back(Entry{key, 0, kNone, kNone});
    return entries_.back();
  }

  void grow() {
    slots_.assign(slots_.size() * 2, kNone);
    used_slots_.clear();
    const size_t mask = slots_.size() - 1;
    for (uint32_t i = 0; i < entries_.size(); ++i) {
      size_t s = mix64(entries_[i].key) & mask;
      while (slots_[s] != kNone) s = (s + 1) & mask;
      slots_[s] = i;
      used_slots_.push_back(static_cast<uint32_t>(s));
    }
  }

  std::vector<uint32_t> slots_;  // entry index or kNone; size a power of two
  std::vector<uint32_t> used_slots_;
  std::vector<Entry> entries_;
  std::vector<Link> links_;
};

// A heap entry: a pair, its count when pushed, and the words to visit when it is merged.
struct Candidate {
  int64_t count;
  uint32_t left;
  uint32_t right;
  uint32_t pair;  // dense pair index
  uint32_t list;  // word list id (see WordLists)
  uint64_t seq;   // push order: equal (count, pair) entries pop oldest first
};

// "a pops after b": larger counts first, then smaller (left, right), then older entries.
struct PopsAfter {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.count != b.count) return a.count < b.count;
    if (a.left != b.left) return a.left > b.left;
    if (a.right != b.right) return a.right > b.right;
    return a.seq > b.seq;
  }
};

// The word lists carried by heap entries. The initial lists (one per pair, built in one pass) live
// in one flat array; lists created by merges are vectors, freed once their entry has been merged.
class WordLists {
 public:
  struct View {
    const uint32_t* data;
    size_t size;
  };

  void set_initial(std::vector<uint64_t> begins, std::vector<uint32_t> words) {
    initial_begin_ = std::move(begins);
    initial_words_ = std::move(words);
    initial_count_ = static_cast<uint32_t>(initial_begin_.size() - 1);
  }

  uint32_t add(std::vector<uint32_t>&& words) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      dynamic_[slot] = std::move(words);
    } else {
      slot = static_cast<uint32_t>(dynamic_.size());
      dynamic_.push_back(std::move(words));
    }
    return initial_count_ + slot;
  }

  View get(uint32_t id) const {
    if (id < initial_count_) {
      return {initial_words_.data() + initial_begin_[id], static_cast<size_t>(initial_begin_[id + 1] - initial_begin_[id])};
    }
    const std::vector<uint32_t>& v = dynamic_[id - initial_count_];
    return {v.data(), v.size()};
  }

  void release(uint32_t id) {
    if (id < initial_count_) return;  // part of the flat array, freed with it
    std::vector<uint32_t>().swap(dynamic_[id - initial_count_]);
    free_.push_back(id - initial_count_);
  }

 private:
  std::vector<uint64_t> initial_begin_;
  std::vector<uint32_t> initial_words_;
  uint32_t initial_count_ = 0;
  std::vector<std::vector<uint32_t>> dynamic_;
  std::vector<uint32_t> free_;
};

// The vocabulary under construction: id -> string and string -> id.
class Vocab {
 public:
  // The id of `token`, adding it when new.
  uint32_t intern(const std::string& token, bool* added = nullptr) {
    auto [it, inserted] = ids_.emplace(token, static_cast<uint32_t>(tokens_.size()));
    if (inserted) tokens_.push_back(token);
    if (added) *added = inserted;
    return it->second;
  }
  const uint32_t* find(const std::string& token) const {
    auto it = ids_.find(token);
    return it == ids_.end() ? nullptr : &it->second;
  }
  const std::string& token(uint32_t id) const { return tokens_[id]; }
  size_t size() const { return tokens_.size(); }
  std::vector<std::string> release() { return std::move(tokens_); }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, uint32_t> ids_;
};

std::string utf8_of(uint32_t cp) {
  std::string s;
  text::append_utf8(s, cp);
  return s;
}

}  // namespace

void validate(const WordPieceTrainerOptions& options) {
  if (options.vocab_size == 0) throw BadInput("vocab size must be at least 1");
  std::unordered_set<std::string> seen;
  for (const std::string& t : options.special_tokens) {
    if (t.empty()) throw BadInput("special tokens must not be empty", "check --special-tokens for a stray comma");
    if (!seen.insert(t).second) {
      throw BadInput("special token '" + t + "' is given twice", "list each special token once in --special-tokens");
    }
  }
}

WordPieceTrainer::WordPieceTrainer(WordPieceTrainerOptions options) : options_(std::move(options)) {
  validate(options_);
}

TrainedVocabulary WordPieceTrainer::train(const WordCounts& words, const MergeProgress& progress) const {
  if (words.empty()) throw BadInput("no words to train on: the corpus is empty", "check --input and --format");
  TrainedVocabulary result;
  result.words = words.total();
  result.distinct_words = words.size();
  Vocab vocab;

  // 1. Special tokens.
  for (const std::string& t : options_.special_tokens) vocab.intern(t);
  result.special_tokens = vocab.size();

  // 2. Alphabet, weighted by word counts. Also note which characters occur after a word's first
  //    character: they need a prefix form.
  std::vector<uint64_t> char_count(kMaxCodePoint + 1, 0);
  std::vector<bool> non_initial(kMaxCodePoint + 1, false);
  words.for_each([&](std::string_view w, uint64_t count) {
    const auto* p = reinterpret_cast<const unsigned char*>(w.data());
    const auto* end = p + w.size();
    bool first = true;
    while (p < end) {
      const uint32_t cp = next_code_point(p, end);
      char_count[cp] += count;
      if (!first) non_initial[cp] = true;
      first = false;
    }
  });
  std::vector<uint32_t> alphabet;
  for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    if (char_count[cp] > 0) alphabet.push_back(cp);
  }
  if (options_.limit_alphabet && alphabet.size() > *options_.limit_alphabet) {
    // Most frequent first; at equal counts the smaller code point stays.
    std::stable_sort(alphabet.begin(), alphabet.end(),
                     [&](uint32_t a, uint32_t b) { return char_count[a] > char_count[b]; });
    result.alphabet_dropped = alphabet.size() - *options_.limit_alphabet;
    alphabet.resize(*options_.limit_alphabet);
    std::sort(alphabet.begin(), alphabet.end());
  }
  result.alphabet = alphabet.size();
  std::vector<uint32_t> initial_id(kMaxCodePoint + 1, kNone);
  for (uint32_t cp : alphabet) initial_id[cp] = vocab.intern(utf8_of(cp));
  if (result.alphabet_dropped > 0) {
    // HF decides "in the alphabet" by looking the character up in the vocabulary, so a dropped
    // character that is also a special token (say "x") stays in words, as that token.
    for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
      if (char_count[cp] > 0 && initial_id[cp] == kNone) {
        if (const uint32_t* id = vocab.find(utf8_of(cp))) initial_id[cp] = *id;
      }
    }
  }
  std::vector<uint32_t>().swap(alphabet);
  std::vector<uint64_t>().swap(char_count);

  // 3. Prefix forms, in code-point order (HF: hash-map order).
  std::vector<uint32_t> continuation_id(kMaxCodePoint + 1, kNone);
  const size_t before_continuations = vocab.size();
  for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    if (non_initial[cp] && initial_id[cp] != kNone) {
      continuation_id[cp] = vocab.intern(options_.continuing_subword_prefix + utf8_of(cp));
    }
  }
  std::vector<bool>().swap(non_initial);
  result.continuation_tokens = vocab.size() - before_continuations;

  if (vocab.size() > options_.vocab_size) {
    throw BadInput(
        "vocab size " + std::to_string(options_.vocab_size) + " is smaller than the initial vocabulary of " +
            std::to_string(vocab.size()) + " tokens (" + std::to_string(result.special_tokens) + " special + " +
            std::to_string(result.alphabet) + " alphabet characters + " + std::to_string(result.continuation_tokens) +
            " '" + options_.continuing_subword_prefix + "' forms), so no merge could be learned",
        "use --vocab-size " + std::to_string(vocab.size()) + " or more, or cap the alphabet with --limit-alphabet");
  }

  // Words as symbol sequences, flat. Words of fewer than two symbols can never merge: not stored.
  std::vector<uint32_t> symbols;
  // One record per word, so a visit during merging touches one cache line besides the symbols.
  struct WordRef {
    uint64_t begin;  // into symbols
    int64_t count;
    uint32_t length;  // current number of symbols
  };
  std::vector<WordRef> word_refs;
  {
    std::vector<uint32_t> current;
    words.for_each([&](std::string_view w, uint64_t count) {
      if (count == 0) return;
      current.clear();
      const auto* p = reinterpret_cast<const unsigned char*>(w.data());
      const auto* end = p + w.size();
      bool first = true;
      while (p < end) {
        const uint32_t cp = next_code_point(p, end);
        const uint32_t id = first ? initial_id[cp] : continuation_id[cp];
        first = false;
        if (initial_id[cp] != kNone) current.push_back(id);
      }
      if (current.size() < 2) return;
      word_refs.push_back(WordRef{symbols.size(), static_cast<int64_t>(count), static_cast<uint32_t>(current.size())});
      symbols.insert(symbols.end(), current.begin(), current.end());
    });
  }
  std::vector<uint32_t>().swap(initial_id);
  std::vector<uint32_t>().swap(continuation_id);
  const size_t word_total = word_refs.size();

  // 4. Pair counts and, per pair, the words it occurs in (each word once).
  PairIndex pair_index(4096);  // character pairs are few; merges add the rest
  std::vector<uint64_t> pair_keys;
  std::vector<int64_t> pair_count;
  std::vector<uint32_t> list_sizes;  // initial pass only
  std::vector<uint32_t> last_word;   // initial pass only: dedups a word within its pair's list
  for (uint32_t w = 0; w < word_total; ++w) {
    const uint32_t* s = symbols.data() + word_refs[w].begin;
    for (uint32_t j = 0; j + 1 < word_refs[w].length; ++j) {
      bool inserted;
      const uint32_t p = pair_index.find_or_insert(pair_key(s[j], s[j + 1]), static_cast<uint32_t>(pair_keys.size()), inserted);
      if (inserted) {
        pair_keys.push_back(pair_key(s[j], s[j + 1]));
        pair_count.push_back(0);
        list_sizes.push_back(0);
        last_word.push_back(kNone);
      }
      pair_count[p] += word_refs[w].count;
      if (last_word[p] != w) {
        last_word[p] = w;
        ++list_sizes[p];
      }
    }
  }
  WordLists lists;
  {
    std::vector<uint64_t> begins(pair_keys.size() + 1, 0);
    for (size_t p = 0; p < pair_keys.size(); ++p) begins[p + 1] = begins[p] + list_sizes[p];
    std::vector<uint32_t> flat(begins.back());
    std::vector<uint64_t> fill(begins.begin(), begins.end() - 1);
    std::fill(last_word.begin(), last_word.end(), kNone);
    for (uint32_t w = 0; w < word_total; ++w) {
      const uint32_t* s = symbols.data() + word_refs[w].begin;
      for (uint32_t j = 0; j + 1 < word_refs[w].length; ++j) {
        const uint32_t p = pair_index.find(pair_key(s[j], s[j + 1]));
        if (last_word[p] != w) {
          last_word[p] = w;
          flat[fill[p]++] = w;
        }
      }
    }
    lists.set_initial(std::move(begins), std::move(flat));
  }
  std::vector<uint32_t>().swap(list_sizes);
  std::vector<uint32_t>().swap(last_word);

  uint64_t seq = 0;
  std::vector<Candidate> heap_storage;
  heap_storage.reserve(pair_keys.size());
  for (uint32_t p = 0; p < pair_keys.size(); ++p) {
    if (pair_count[p] > 0) {
      heap_storage.push_back(Candidate{pair_count[p], static_cast<uint32_t>(pair_keys[p] >> 32),
                                       static_cast<uint32_t>(pair_keys[p]), p, p, seq++});
    }
  }
  std::priority_queue<Candidate, std::vector<Candidate>, PopsAfter> heap(PopsAfter{}, std::move(heap_storage));

  // 5. Merge.
  const size_t merge_budget = options_.vocab_size - vocab.size();
  StepChanges step;
  result.stop_reason = "no_pairs";
  while (true) {
    if (vocab.size() >= options_.vocab_size) {
      result.stop_reason = "vocab_size";
      break;
    }
    if (heap.empty()) break;
    Candidate top = heap.top();
    heap.pop();
    if (top.count != pair_count[top.pair]) {
      top.count = pair_count[top.pair];
      top.seq = seq++;
      heap.push(top);
      continue;
    }
    if (top.count < 1) break;
    if (static_cast<uint64_t>(top.count) < options_.min_frequency) {
      result.stop_reason = "min_frequency";
      break;
    }

    const std::string& right_token = vocab.token(top.right);
    const std::string& prefix = options_.continuing_subword_prefix;
    std::string merged = vocab.token(top.left);
    if (!prefix.empty() && right_token.compare(0, prefix.size(), prefix) == 0) {
      merged.append(right_token, prefix.size(), std::string::npos);
    } else {
      merged += right_token;
    }
    bool added;
    const uint32_t new_id = vocab.intern(merged, &added);
    ++result.merges;
    if (added) ++result.merge_tokens;

    // Merge in every listed word, left to right, non-overlapping (HF's Word::merge, in place).
    // The merged pair's own count is left as it is, as HF does: only neighbours change.
    const uint32_t a = top.left, b = top.right;
    step.clear();
    const WordLists::View list = lists.get(top.list);
    for (size_t k = 0; k < list.size; ++k) {
      // Visits are memory-bound (a word record, then its symbols, both far apart): prefetch
      // the records a few words ahead and the symbols of nearer ones.
      if (k + 16 < list.size) __builtin_prefetch(&word_refs[list.data[k + 16]]);
      if (k + 8 < list.size) __builtin_prefetch(symbols.data() + word_refs[list.data[k + 8]].begin);
      const uint32_t w = list.data[k];
      WordRef& ref = word_refs[w];
      uint32_t* s = symbols.data() + ref.begin;
      const uint32_t len = ref.length;
      const int64_t c = ref.count;
      uint32_t out = 0;
      for (uint32_t r = 0; r < len;) {
        if (s[r] == a && r + 1 < len && s[r + 1] == b) {
          if (out > 0) {
            step.add(pair_key(s[out - 1], a), -c);
            step.formed(pair_key(s[out - 1], new_id), c, w);
          }
          if (r + 2 < len) {
            step.add(pair_key(b, s[r + 2]), -c);
            step.formed(pair_key(new_id, s[r + 2]), c, w);
          }
          s[out++] = new_id;
          r += 2;
        } else {
          s[out++] = s[r++];
        }
      }
      ref.length = out;
    }
    lists.release(top.list);

    // Apply the step's changes; pairs that gained occurrences get an entry listing the words where
    // they were formed. (Within a step every pair is distinct, so the push order never decides a
    // tie: seq only orders entries of the same pair from different steps.)
    for (const StepChanges::Entry& e : step.entries()) {
      bool inserted;
      const uint32_t p = pair_index.find_or_insert(e.key, static_cast<uint32_t>(pair_keys.size()), inserted);
      if (inserted) {
        pair_keys.push_back(e.key);
        pair_count.push_back(0);
      }
      pair_count[p] += e.delta;
      if (e.first != kNone && pair_count[p] > 0) {
        std::vector<uint32_t> ws;
        step.words_of(e, ws);
        heap.push(Candidate{pair_count[p], static_cast<uint32_t>(e.key >> 32), static_cast<uint32_t>(e.key), p,
                            lists.add(std::move(ws)), seq++});
      }
    }
    if (progress && (result.merges & 255) == 0) progress(result.merges, merge_budget);
  }
  if (progress) progress(result.merges, merge_budget);
  result.tokens = vocab.release();
  return result;
}

}  // namespace bertpt::tokenizer
