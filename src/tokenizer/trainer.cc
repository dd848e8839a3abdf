#include "tokenizer/trainer.h"

#include <algorithm>
#include <cstdio>
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
      return {initial_words_.data() + initial_begin_[id],
              static_cast<size_t>(initial_begin_[id + 1] - initial_begin_[id])};
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

// One record per word, so a visit during merging touches one cache line besides the symbols.
struct WordRef {
  uint64_t begin;  // into SymbolWords::symbols
  int64_t count;
  uint32_t length;  // current number of symbols
};

// The words as symbol (token id) sequences, flat. Words of fewer than two symbols can never merge
// and are not stored.
struct SymbolWords {
  std::vector<uint32_t> symbols;
  std::vector<WordRef> refs;
};

// Rule 3's forms of a character: plain, with the prefix (not the word's first character), with the
// suffix (the word's last), with both. Without a prefix or a suffix some forms are the plain one.
enum Form : uint8_t { kPlain = 0, kPrefixed = 1, kSuffixed = 2, kBoth = 3 };
constexpr int kForms = 4;

class FormRules {
 public:
  explicit FormRules(const BpeTrainerOptions& options)
      : prefix_(options.continuing_subword_prefix), suffix_(options.end_of_word_suffix) {}

  // The form of a character at this position of its word.
  Form at(bool first, bool last) const {
    return static_cast<Form>((!first && !prefix_.empty() ? kPrefixed : 0) | (last && !suffix_.empty() ? kSuffixed : 0));
  }
  // Whether some position takes form f.
  bool used(int f) const { return (!(f & kPrefixed) || !prefix_.empty()) && (!(f & kSuffixed) || !suffix_.empty()); }
  std::string text(int f, uint32_t cp) const {
    std::string s = (f & kPrefixed) ? prefix_ : std::string();
    text::append_utf8(s, cp);
    if (f & kSuffixed) s += suffix_;
    return s;
  }

 private:
  std::string prefix_, suffix_;
};

// Per form and code point: the id of the character's token in that form (kNone: the character is
// not in the vocabulary). Forms no position takes are left empty.
struct CharIds {
  std::vector<uint32_t> form[kForms];
  const std::vector<uint32_t>& plain() const { return form[kPlain]; }
};

// Per code point: occurrences weighted by word counts (initial_alphabet's characters: the largest
// count), and per form other than plain the number of distinct words in which the character takes
// it (those words need the form's token).
struct CharStats {
  std::vector<uint64_t> count;
  std::vector<uint32_t> form_words[kForms];
};

CharStats count_characters(const WordCounts& words, const BpeTrainerOptions& options, const FormRules& forms) {
  CharStats chars;
  chars.count.assign(kMaxCodePoint + 1, 0);
  std::vector<uint32_t> last_word[kForms];  // counts a word once per form and character
  for (int f = kPrefixed; f < kForms; ++f) {
    if (!forms.used(f)) continue;
    chars.form_words[f].assign(kMaxCodePoint + 1, 0);
    last_word[f].assign(kMaxCodePoint + 1, kNone);
  }
  uint32_t word = 0;
  words.for_each([&](std::string_view w, uint64_t count) {
    const auto* p = reinterpret_cast<const unsigned char*>(w.data());
    const auto* end = p + w.size();
    bool first = true;
    while (p < end) {
      const uint32_t cp = next_code_point(p, end);
      chars.count[cp] += count;
      const Form f = forms.at(first, p == end);
      if (f != kPlain && last_word[f][cp] != word) {
        last_word[f][cp] = word;
        ++chars.form_words[f][cp];
      }
      first = false;
    }
    ++word;
  });
  for (char32_t c : options.initial_alphabet) chars.count[c] = std::numeric_limits<uint64_t>::max();
  return chars;
}

// Rule 3's order of the forms. HF adds "##c" while it splits the words into characters, in the order
// its word hash map iterates them: the first word met that has c after its first character decides.
// That map is seeded at random, so the order (and with it HF's tie-breaks) changes from run to run —
// but not uniformly: a form found in n words is met after about 1/(n+1) of them, so forms in many
// words come early in nearly every run. We take that most likely order: more words first, then the
// smaller code point, then the form. (Code-point order, used before, is unlike every HF run — all
// Latin before all Cyrillic, Cyrillic alphabetical — and broke ties against HF on text rich in one
// non-Latin script.)
std::vector<std::pair<int, uint32_t>> form_order(const CharStats& chars) {
  std::vector<std::pair<int, uint32_t>> order;  // (form, code point)
  for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    for (int f = kPrefixed; f < kForms; ++f) {
      if (!chars.form_words[f].empty() && chars.form_words[f][cp] > 0) order.emplace_back(f, cp);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return chars.form_words[a.first][a.second] > chars.form_words[b.first][b.second];
  });
  return order;
}

// The characters kept, in code-point order: every one that occurs or, beyond `limit`, the most
// frequent (at equal counts the smaller code point stays). `dropped` receives how many were cut.
std::vector<uint32_t> choose_alphabet(const std::vector<uint64_t>& char_count, std::optional<size_t> limit,
                                      size_t& dropped) {
  std::vector<uint32_t> alphabet;
  for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    if (char_count[cp] > 0) alphabet.push_back(cp);
  }
  dropped = 0;
  if (limit && alphabet.size() > *limit) {
    std::stable_sort(alphabet.begin(), alphabet.end(),
                     [&](uint32_t a, uint32_t b) { return char_count[a] > char_count[b]; });
    dropped = alphabet.size() - *limit;
    alphabet.resize(*limit);
    std::sort(alphabet.begin(), alphabet.end());
  }
  return alphabet;
}

// Rules 2 and 3: adds the alphabet (code-point order) and then the prefix/suffix forms (form_order)
// to `vocab`, and records their numbers in `result`.
CharIds add_characters(const WordCounts& words, const BpeTrainerOptions& options, const FormRules& forms, Vocab& vocab,
                       TrainedVocabulary& result) {
  const CharStats chars = count_characters(words, options, forms);
  const std::vector<uint32_t> alphabet = choose_alphabet(chars.count, options.limit_alphabet, result.alphabet_dropped);
  result.alphabet = alphabet.size();
  CharIds ids;
  for (int f = kPlain; f < kForms; ++f) {
    if (f == kPlain || forms.used(f)) ids.form[f].assign(kMaxCodePoint + 1, kNone);
  }
  std::vector<uint32_t>& plain = ids.form[kPlain];
  for (uint32_t cp : alphabet) plain[cp] = vocab.intern(utf8_of(cp));
  if (result.alphabet_dropped > 0) {
    // HF decides "in the alphabet" by looking the character up in the vocabulary, so a dropped
    // character that is also a special token (say "x") stays in words, as that token.
    for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
      if (chars.count[cp] > 0 && plain[cp] == kNone) {
        if (const uint32_t* id = vocab.find(utf8_of(cp))) plain[cp] = *id;
      }
    }
  }
  const size_t before_forms = vocab.size();
  for (const auto& [f, cp] : form_order(chars)) {
    if (plain[cp] != kNone) ids.form[f][cp] = vocab.intern(forms.text(f, cp));
  }
  result.continuation_tokens = vocab.size() - before_forms;
  return ids;
}

// HF silently returns an initial vocabulary larger than vocab_size; we name the numbers instead.
void check_initial_vocabulary_fits(size_t initial_size, const BpeTrainerOptions& options,
                                   const TrainedVocabulary& result) {
  if (initial_size <= options.vocab_size) return;
  const std::string initial = std::to_string(initial_size);
  std::string parts = std::to_string(result.special_tokens) + " special + " + std::to_string(result.alphabet) +
                      " alphabet characters";
  if (result.continuation_tokens > 0) {
    parts += " + " + std::to_string(result.continuation_tokens) + " '" + options.continuing_subword_prefix + "'" +
             (options.end_of_word_suffix.empty() ? "" : "/'" + options.end_of_word_suffix + "'") + " forms";
  }
  throw BadInput("vocab size " + std::to_string(options.vocab_size) + " is smaller than the initial vocabulary of " +
                     initial + " tokens (" + parts + "), so no merge could be learned",
                 "use --vocab-size " + initial + " or more, or cap the alphabet with --limit-alphabet");
}

// Rule 3: each word as its characters' ids, characters outside the alphabet skipped.
SymbolWords split_into_symbols(const WordCounts& words, const CharIds& ids, const FormRules& forms) {
  SymbolWords out;
  std::vector<uint32_t> current;
  words.for_each([&](std::string_view w, uint64_t count) {
    if (count == 0) return;
    current.clear();
    const auto* p = reinterpret_cast<const unsigned char*>(w.data());
    const auto* end = p + w.size();
    bool first = true;
    while (p < end) {
      const uint32_t cp = next_code_point(p, end);
      const Form f = forms.at(first, p == end);
      first = false;
      if (ids.plain()[cp] != kNone) current.push_back(ids.form[f][cp]);
    }
    if (current.size() < 2) return;
    out.refs.push_back(WordRef{out.symbols.size(), static_cast<int64_t>(count), static_cast<uint32_t>(current.size())});
    out.symbols.insert(out.symbols.end(), current.begin(), current.end());
  });
  return out;
}

// Every adjacent pair seen so far: a dense index, its key and its current count (the summed counts
// of the words it occurs in).
class PairTable {
 public:
  // The index of `key`, added with count 0 when new (`inserted` tells which happened).
  uint32_t find_or_add(uint64_t key, bool& inserted) {
    const uint32_t p = index_.find_or_insert(key, size(), inserted);
    if (inserted) {
      keys_.push_back(key);
      counts_.push_back(0);
    }
    return p;
  }
  uint32_t find(uint64_t key) const { return index_.find(key); }
  uint32_t size() const { return static_cast<uint32_t>(keys_.size()); }
  uint64_t key(uint32_t p) const { return keys_[p]; }
  int64_t& count(uint32_t p) { return counts_[p]; }
  int64_t count(uint32_t p) const { return counts_[p]; }

 private:
  PairIndex index_{4096};  // character pairs are few; merges add the rest
  std::vector<uint64_t> keys_;
  std::vector<int64_t> counts_;
};

// Rule 4's first half: counts every pair of every word into `pairs`; returns, per pair, the number
// of distinct words it occurs in.
std::vector<uint32_t> count_pairs(const SymbolWords& words, PairTable& pairs) {
  std::vector<uint32_t> list_sizes;
  std::vector<uint32_t> last_word;  // dedups a word within its pair's list
  for (uint32_t w = 0; w < words.refs.size(); ++w) {
    const uint32_t* s = words.symbols.data() + words.refs[w].begin;
    for (uint32_t j = 0; j + 1 < words.refs[w].length; ++j) {
      bool inserted;
      const uint32_t p = pairs.find_or_add(pair_key(s[j], s[j + 1]), inserted);
      if (inserted) {
        list_sizes.push_back(0);
        last_word.push_back(kNone);
      }
      pairs.count(p) += words.refs[w].count;
      if (last_word[p] != w) {
        last_word[p] = w;
        ++list_sizes[p];
      }
    }
  }
  return list_sizes;
}

// The initial word lists: per pair, the words it occurs in, each once, in word order.
WordLists list_words_of_pairs(const SymbolWords& words, const PairTable& pairs, const std::vector<uint32_t>& sizes) {
  std::vector<uint64_t> begins(sizes.size() + 1, 0);
  for (size_t p = 0; p < sizes.size(); ++p) begins[p + 1] = begins[p] + sizes[p];
  std::vector<uint32_t> flat(begins.back());
  std::vector<uint64_t> fill(begins.begin(), begins.end() - 1);
  std::vector<uint32_t> last_word(sizes.size(), kNone);
  for (uint32_t w = 0; w < words.refs.size(); ++w) {
    const uint32_t* s = words.symbols.data() + words.refs[w].begin;
    for (uint32_t j = 0; j + 1 < words.refs[w].length; ++j) {
      const uint32_t p = pairs.find(pair_key(s[j], s[j + 1]));
      if (last_word[p] != w) {
        last_word[p] = w;
        flat[fill[p]++] = w;
      }
    }
  }
  WordLists lists;
  lists.set_initial(std::move(begins), std::move(flat));
  return lists;
}

using CandidateHeap = std::priority_queue<Candidate, std::vector<Candidate>, PopsAfter>;

// Rules 5 and 6 over the counted pairs: pops the best pair, adds its merged token, merges it in the
// words listed for it, and updates the neighbouring pairs' counts, until a stop condition holds.
class MergeLoop {
 public:
  MergeLoop(const BpeTrainerOptions& options, Vocab& vocab, SymbolWords& words)
      : options_(options), vocab_(vocab), words_(words) {
    if (options_.max_token_length) {
      // Every symbol is one character now (HF's Word::add(id, 1)); merged tokens add up.
      token_chars_.assign(vocab_.size(), 0);
      for (uint32_t id : words_.symbols) token_chars_[id] = 1;
      max_token_length_ = *options_.max_token_length;
    }
    lists_ = list_words_of_pairs(words_, pairs_, count_pairs(words_, pairs_));
    std::vector<Candidate> initial;
    initial.reserve(pairs_.size());
    for (uint32_t p = 0; p < pairs_.size(); ++p) {
      if (pairs_.count(p) > 0) {
        initial.push_back(Candidate{pairs_.count(p), static_cast<uint32_t>(pairs_.key(p) >> 32),
                                    static_cast<uint32_t>(pairs_.key(p)), p, p, seq_++});
      }
    }
    heap_ = CandidateHeap(PopsAfter{}, std::move(initial));
  }

  void run(TrainedVocabulary& result, const MergeProgress& progress) {
    const size_t merge_budget = options_.vocab_size - vocab_.size();
    result.stop_reason = "no_pairs";
    while (true) {
      if (vocab_.size() >= options_.vocab_size) {
        result.stop_reason = "vocab_size";
        break;
      }
      const std::optional<Candidate> top = pop_current();
      if (!top || top->count < 1) break;
      if (static_cast<uint64_t>(top->count) < options_.min_frequency) {
        result.stop_reason = "min_frequency";
        break;
      }
      const uint32_t new_id = add_merged_token(*top, result);
      merge_in_listed_words(*top, new_id);
      apply_step_changes();
      if (progress && (result.merges & 255) == 0) progress(result.merges, merge_budget);
    }
    if (progress) progress(result.merges, merge_budget);
    result.merge_pairs = merge_pairs();
  }

 private:
  // The best entry whose count is current; entries with an out-of-date count are pushed back with
  // the current one. nullopt when the heap is empty.
  std::optional<Candidate> pop_current() {
    while (!heap_.empty()) {
      Candidate top = heap_.top();
      heap_.pop();
      if (top.count == pairs_.count(top.pair)) return top;
      top.count = pairs_.count(top.pair);
      top.seq = seq_++;
      heap_.push(top);
    }
    return std::nullopt;
  }

  // Rule 6: left + right without right's leading prefix; a string that already exists keeps its id.
  uint32_t add_merged_token(const Candidate& top, TrainedVocabulary& result) {
    const std::string& right_token = vocab_.token(top.right);
    const std::string& prefix = options_.continuing_subword_prefix;
    std::string merged = vocab_.token(top.left);
    if (!prefix.empty() && right_token.compare(0, prefix.size(), prefix) == 0) {
      merged.append(right_token, prefix.size(), std::string::npos);
    } else {
      merged += right_token;
    }
    bool added;
    const uint32_t new_id = vocab_.intern(merged, &added);
    ++result.merges;
    if (added) ++result.merge_tokens;
    merges_.emplace_back(top.left, top.right);
    if (max_token_length_ != kNoLimit) {
      if (new_id >= token_chars_.size()) token_chars_.resize(new_id + 1, 0);
      // A string that already exists keeps the length it had (0: a special token not yet a symbol).
      if (token_chars_[new_id] == 0) token_chars_[new_id] = token_chars_[top.left] + token_chars_[top.right];
    }
    return new_id;
  }

  // HF's merges as its BPE model keeps them: one rank per pair, the last one it was merged at.
  std::vector<std::pair<std::string, std::string>> merge_pairs() const {
    std::vector<std::pair<std::string, std::string>> out;
    std::unordered_set<uint64_t> seen;
    for (auto it = merges_.rbegin(); it != merges_.rend(); ++it) {
      if (seen.insert(pair_key(it->first, it->second)).second) {
        out.emplace_back(vocab_.token(it->first), vocab_.token(it->second));
      }
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Whether a merge forms the pair (left, right), by rule 6's length limit.
  bool short_enough(uint32_t left, uint32_t right) const {
    return max_token_length_ == kNoLimit || token_chars_[left] + token_chars_[right] < max_token_length_;
  }

  // Merges the pair in every listed word, left to right, non-overlapping (HF's Word::merge, in
  // place), and collects the neighbours' count changes in step_. The merged pair's own count is left
  // as it is, as HF does: only neighbours change.
  void merge_in_listed_words(const Candidate& top, uint32_t new_id) {
    const uint32_t a = top.left, b = top.right;
    step_.clear();
    const WordLists::View list = lists_.get(top.list);
    for (size_t k = 0; k < list.size; ++k) {
      // Visits are memory-bound (a word record, then its symbols, both far apart): prefetch
      // the records a few words ahead and the symbols of nearer ones.
      if (k + 16 < list.size) __builtin_prefetch(&words_.refs[list.data[k + 16]]);
      if (k + 8 < list.size) __builtin_prefetch(words_.symbols.data() + words_.refs[list.data[k + 8]].begin);
      const uint32_t w = list.data[k];
      WordRef& ref = words_.refs[w];
      uint32_t* s = words_.symbols.data() + ref.begin;
      const uint32_t len = ref.length;
      const int64_t c = ref.count;
      uint32_t out = 0;
      for (uint32_t r = 0; r < len;) {
        if (s[r] == a && r + 1 < len && s[r + 1] == b) {
          if (out > 0) {
            step_.add(pair_key(s[out - 1], a), -c);
            if (short_enough(s[out - 1], new_id)) step_.formed(pair_key(s[out - 1], new_id), c, w);
          }
          if (r + 2 < len) {
            step_.add(pair_key(b, s[r + 2]), -c);
            if (short_enough(new_id, s[r + 2])) step_.formed(pair_key(new_id, s[r + 2]), c, w);
          }
          s[out++] = new_id;
          r += 2;
        } else {
          s[out++] = s[r++];
        }
      }
      ref.length = out;
    }
    lists_.release(top.list);
  }

  // Applies the step's changes; pairs that gained occurrences get an entry listing the words where
  // they were formed. (Within a step every pair is distinct, so the push order never decides a
  // tie: seq only orders entries of the same pair from different steps.)
  void apply_step_changes() {
    for (const StepChanges::Entry& e : step_.entries()) {
      bool inserted;
      const uint32_t p = pairs_.find_or_add(e.key, inserted);
      pairs_.count(p) += e.delta;
      if (e.first != kNone && pairs_.count(p) > 0) {
        std::vector<uint32_t> ws;
        step_.words_of(e, ws);
        heap_.push(Candidate{pairs_.count(p), static_cast<uint32_t>(e.key >> 32), static_cast<uint32_t>(e.key), p,
                             lists_.add(std::move(ws)), seq_++});
      }
    }
  }

  static constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

  const BpeTrainerOptions& options_;
  Vocab& vocab_;
  SymbolWords& words_;
  std::vector<std::pair<uint32_t, uint32_t>> merges_;  // every merge step, in order
  size_t max_token_length_ = kNoLimit;
  std::vector<uint32_t> token_chars_;  // per id: its length in the word's characters (max_token_length only)
  PairTable pairs_;
  WordLists lists_;
  CandidateHeap heap_;
  uint64_t seq_ = 0;  // push order of heap entries
  StepChanges step_;
};

}  // namespace

void validate_special_tokens(const std::vector<std::string>& special_tokens) {
  std::unordered_set<std::string> seen;
  for (const std::string& t : special_tokens) {
    if (t.empty()) throw BadInput("special tokens must not be empty", "check --special-tokens for a stray comma");
    if (!seen.insert(t).second) {
      throw BadInput("special token '" + t + "' is given twice", "list each special token once in --special-tokens");
    }
  }
}

void validate_initial_alphabet(const std::vector<char32_t>& initial_alphabet) {
  for (char32_t c : initial_alphabet) {
    if (c > kMaxCodePoint || (c >= 0xD800 && c <= 0xDFFF)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
      throw BadInput(std::string("initial alphabet character ") + hex + " is not a Unicode scalar value");
    }
  }
}

void validate(const BpeTrainerOptions& options) {
  if (options.vocab_size == 0) throw BadInput("vocab size must be at least 1");
  validate_special_tokens(options.special_tokens);
  if (options.max_token_length && *options.max_token_length == 0) {
    throw BadInput("max token length must be at least 1", "leave --max-token-length out for no limit");
  }
  validate_initial_alphabet(options.initial_alphabet);
}

BpeTrainer::BpeTrainer(BpeTrainerOptions options) : options_(std::move(options)) { validate(options_); }

TrainedVocabulary BpeTrainer::train(const WordCounts& words, const MergeProgress& progress) const {
  if (words.empty()) throw BadInput("no words to train on: the corpus is empty", "check --input and --format");
  TrainedVocabulary result;
  result.words = words.total();
  result.distinct_words = words.size();
  Vocab vocab;
  for (const std::string& t : options_.special_tokens) vocab.intern(t);  // rule 1
  result.special_tokens = vocab.size();
  const FormRules forms(options_);
  SymbolWords symbol_words;
  {
    const CharIds char_ids = add_characters(words, options_, forms, vocab, result);  // rules 2 and 3
    check_initial_vocabulary_fits(vocab.size(), options_, result);
    symbol_words = split_into_symbols(words, char_ids, forms);
  }
  MergeLoop(options_, vocab, symbol_words).run(result, progress);  // rules 4 to 6
  result.tokens = vocab.release();
  return result;
}

}  // namespace bertpt::tokenizer
