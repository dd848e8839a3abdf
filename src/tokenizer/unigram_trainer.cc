#include "tokenizer/unigram_trainer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "text/utf8.h"
#include "tokenizer/trainer.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr double kUnkPenalty = 10.0;             // HF's K_UNK_PENALTY (models/unigram/model.rs)
constexpr double kExpectedThreshold = 0.5;       // HF's M step drops pieces expected fewer times
constexpr double kRequiredCharPenalty = 0.0001;  // HF's finalize: min_score_penalty_delta
constexpr uint32_t kUnkPiece = 0;                // HF's training placeholder "<UNK>" is piece 0
constexpr size_t kMaxPieceLength = 65534;        // a lattice position's node count must fit 16 bits

std::string utf8_of(const char32_t* s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) text::append_utf8(out, s[i]);
  return out;
}

// HF's digamma (models/unigram/trainer.rs): the recurrence up to 7, then the asymptotic series.
double digamma(double x) {
  double result = 0;
  while (x < 7) {
    result -= 1 / x;
    x += 1;
  }
  x -= 0.5;
  const double xx = 1 / x, xx2 = xx * xx, xx4 = xx2 * xx2;
  return result + std::log(x) + xx2 / 24 - 7.0 / 960 * xx4 + 31.0 / 8064 * xx4 * xx2 - 127.0 / 30720 * xx4 * xx4;
}

// HF's log_sum_exp (models/unigram/lattice.rs): log(exp(x) + exp(y)), y alone in init mode, and the
// larger alone when they are more than 50 apart.
double log_sum_exp(double x, double y, bool init) {
  if (init) return y;
  const double lo = std::min(x, y), hi = std::max(x, y);
  return hi > lo + 50 ? hi : hi + std::log(std::exp(lo - hi) + 1);
}

// The bounds of the contiguous blocks [0, n) is cut into for `threads` threads (fewer for small n):
// block t is [bounds[t], bounds[t + 1]). The same for the same (threads, n), always.
std::vector<size_t> block_bounds(size_t threads, size_t n) {
  threads = std::max<size_t>(1, std::min(threads, n / 64 + 1));
  std::vector<size_t> bounds;
  for (size_t t = 0; t <= threads; ++t) bounds.push_back(n * t / threads);
  return bounds;
}

// Runs f(block, begin, end) over the blocks of block_bounds(threads, n), each on a thread of its own.
template <typename F>
void for_blocks(size_t threads, size_t n, F&& f) {
  const std::vector<size_t> bounds = block_bounds(threads, n);
  std::vector<std::thread> pool;
  for (size_t t = 1; t + 1 < bounds.size(); ++t) pool.emplace_back([&, t] { f(t, bounds[t], bounds[t + 1]); });
  f(size_t{0}, bounds[0], bounds[1]);
  for (std::thread& th : pool) th.join();
}

// std::sort on `threads` threads: the blocks sorted side by side, then merged.
template <typename T, typename Less>
void parallel_sort(std::vector<T>& v, Less less, size_t threads) {
  std::vector<size_t> bounds = block_bounds(threads, v.size());
  for_blocks(threads, v.size(),
             [&](size_t, size_t begin, size_t end) { std::sort(v.begin() + begin, v.begin() + end, less); });
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
      const size_t mid = bounds[i + 1], end = i + 2 < bounds.size() ? bounds[i + 2] : mid;
      std::inplace_merge(v.begin() + bounds[i], v.begin() + mid, v.begin() + end, less);
      merged.push_back(end);
    }
    bounds = std::move(merged);
  }
}

// The distinct words as code points, back to back, in byte order of their UTF-8 (a fixed order, so
// nothing depends on how the counts were gathered), with their counts.
struct Words {
  std::vector<char32_t> chars;
  std::vector<uint64_t> begin;  // size() + 1 entries
  std::vector<uint64_t> count;
  uint64_t total = 0;        // sum of counts
  uint64_t total_chars = 0;  // sum of count x length

  size_t size() const { return count.size(); }
  const char32_t* data(size_t w) const { return chars.data() + begin[w]; }
  size_t length(size_t w) const { return begin[w + 1] - begin[w]; }
};

Words decode_words(const WordCounts& counts) {
  std::vector<std::pair<std::string_view, uint64_t>> items;
  items.reserve(counts.size());
  counts.for_each([&](std::string_view w, uint64_t c) { items.emplace_back(w, c); });
  std::sort(items.begin(), items.end());
  Words words;
  words.begin.push_back(0);
  for (const auto& [w, c] : items) {
    if (c == 0) continue;  // as if never counted
    const auto* p = reinterpret_cast<const unsigned char*>(w.data());
    for (size_t i = 0, len = 0; i < w.size(); i += len) {
      words.chars.push_back(unicode::decode_utf8(p + i, w.size() - i, len));
    }
    words.begin.push_back(words.chars.size());
    words.count.push_back(c);
    words.total += c;
    words.total_chars += c * (words.begin.back() - words.begin[words.begin.size() - 2]);
  }
  return words;
}

// Pieces as code points in one pool, with scores. Piece 0 is HF's training placeholder "<UNK>".
class Pieces {
 public:
  uint32_t add(const char32_t* s, size_t n, double score) {
    begin_.push_back(pool_.size());
    pool_.insert(pool_.end(), s, s + n);
    length_.push_back(static_cast<uint32_t>(n));
    score_.push_back(score);
    return static_cast<uint32_t>(score_.size() - 1);
  }
  uint32_t add_from(const Pieces& other, uint32_t i, double score) {
    return add(other.data(i), other.length(i), score);
  }
  size_t size() const { return score_.size(); }
  const char32_t* data(uint32_t i) const { return pool_.data() + begin_[i]; }
  uint32_t length(uint32_t i) const { return length_[i]; }
  double score(uint32_t i) const { return score_[i]; }
  double& score(uint32_t i) { return score_[i]; }
  std::u32string_view view(uint32_t i) const { return {data(i), length(i)}; }

 private:
  std::vector<char32_t> pool_;
  std::vector<uint64_t> begin_;
  std::vector<uint32_t> length_;
  std::vector<double> score_;
};

// A trie over the pieces' code points (piece 0 left out), laid out breadth first: the children of
// a node are contiguous and sorted by code point, and the child reached by edge e is node e + 1, so
// a step is a binary search in a short array (the root's, the longest, stays in cache).
class PieceTrie {
 public:
  explicit PieceTrie(const Pieces& pieces) {
    std::vector<uint32_t> order;
    for (uint32_t i = 1; i < pieces.size(); ++i) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return pieces.view(a) < pieces.view(b); });
    piece_.push_back(kNone);  // the root
    struct Range {
      size_t lo, hi, depth;  // pieces order[lo, hi) share their first `depth` code points: one node
    };
    std::vector<Range> queue{{0, order.size(), 0}};
    for (size_t node = 0; node < queue.size(); ++node) {  // nodes are numbered in queue order
      Range r = queue[node];
      first_child_.push_back(static_cast<uint32_t>(label_.size()));
      if (r.lo < r.hi && pieces.length(order[r.lo]) == r.depth) piece_[node] = order[r.lo++];
      for (size_t lo = r.lo; lo < r.hi;) {
        const char32_t c = pieces.data(order[lo])[r.depth];
        size_t hi = lo + 1;
        while (hi < r.hi && pieces.data(order[hi])[r.depth] == c) ++hi;
        label_.push_back(c);
        piece_.push_back(kNone);
        queue.push_back(Range{lo, hi, r.depth + 1});
        lo = hi;
      }
    }
    first_child_.push_back(static_cast<uint32_t>(label_.size()));
  }

  // Calls f(length, piece) for every piece that is a prefix of s[0, n), shortest first.
  template <typename F>
  void prefixes(const char32_t* s, size_t n, F&& f) const {
    uint32_t node = 0;  // the root
    for (size_t k = 0; k < n; ++k) {
      const char32_t* lo = label_.data() + first_child_[node];
      const char32_t* hi = label_.data() + first_child_[node + 1];
      const char32_t* edge = std::lower_bound(lo, hi, s[k]);
      if (edge == hi || *edge != s[k]) return;
      node = static_cast<uint32_t>(edge - label_.data()) + 1;
      if (piece_[node] != kNone) f(k + 1, piece_[node]);
    }
  }

 private:
  std::vector<uint32_t> first_child_;  // per node, and one past the last
  std::vector<char32_t> label_;        // per edge
  std::vector<uint32_t> piece_;        // per node: the piece ending there, or kNone
};

// HF's Unigram model as training uses it: the pieces, the smallest score (NaN, piece 0's, left out)
// and, for the lattices, each piece's score, probability and length together.
struct Model {
  explicit Model(Pieces p) : pieces(std::move(p)), info(pieces.size()) {
    min_score = std::numeric_limits<double>::infinity();
    for (uint32_t i = 0; i < pieces.size(); ++i) {
      if (pieces.score(i) < min_score) min_score = pieces.score(i);
      info[i] = Info{pieces.score(i), std::exp(pieces.score(i)), pieces.length(i)};
    }
    unk_score = min_score - kUnkPenalty;
    info[kUnkPiece] = Info{unk_score, std::exp(unk_score), 1};  // an unknown character's node
  }

  struct Info {
    double score, prob;
    uint32_t length;
  };
  Pieces pieces;
  std::vector<Info> info;
  double min_score;
  double unk_score;  // an unknown node's (HF: min_score - K_UNK_PENALTY)
};

struct LatticeNode {
  uint32_t begin, end;  // in code points
  uint32_t piece;       // kUnkPiece: an unknown character
  double score;
  double prob;  // exp(score)
};

LatticeNode make_node(const Model& model, uint32_t begin, uint32_t piece) {
  const Model::Info& i = model.info[piece];
  return LatticeNode{begin, begin + i.length, piece, i.score, i.prob};
}

// The lattice of s[0, n) in HF's node order (models/unigram/model.rs populate_nodes): by begin, then
// shortest first; where no one-character piece starts, an unknown node of one character follows.
void build_lattice(const Model& model, const PieceTrie& trie, const char32_t* s, size_t n,
                   std::vector<LatticeNode>& nodes) {
  nodes.clear();
  for (uint32_t b = 0; b < n; ++b) {
    bool has_single = false;
    trie.prefixes(s + b, n - b, [&](size_t len, uint32_t piece) {
      nodes.push_back(make_node(model, b, piece));
      has_single |= len == 1;
    });
    if (!has_single) nodes.push_back(make_node(model, b, kUnkPiece));
  }
}

// The words' lattices, kept from pass to pass. Pieces only ever go (the M step and pruning drop
// them; nothing adds one), so a word's lattice under a later model is its stored lattice less the
// pieces gone, plus an unknown node where a one-character piece went: after the first pass, filtering
// the stored nodes replaces the trie walk. Each block of words (one per thread, the same blocks in
// every pass) keeps its own nodes: per character the number of nodes starting there, and the nodes'
// pieces in lattice order.
class Lattices {
 public:
  Lattices(const Words& words, size_t threads) : words_(words), threads_(threads), blocks_(threads) {}

  // The model's pieces were renumbered: the old piece i is now `renumber[i]` (kNone: gone).
  void renumber(const std::vector<uint32_t>& renumber) {
    if (renumber_.empty()) {
      renumber_ = renumber;
      return;
    }
    for (uint32_t& r : renumber_) r = r == kNone ? kNone : renumber[r];
  }

  // Calls f(block, w, nodes) for every non-empty word w with its lattice under `model`: each block's
  // words in order, on a thread of their own.
  template <typename F>
  void for_each(const Model& model, F&& f) {
    const std::optional<PieceTrie> trie = built_ ? std::nullopt : std::optional<PieceTrie>(model.pieces);
    for_blocks(threads_, words_.size(), [&](size_t t, size_t begin, size_t end) {
      std::vector<LatticeNode> nodes;
      if (built_) {
        filter(model, blocks_[t], begin, end, nodes, f, t);
      } else {
        build(model, *trie, blocks_[t], begin, end, nodes, f, t);
      }
    });
    built_ = true;
    renumber_.clear();
  }

 private:
  struct Block {
    std::vector<uint32_t> pieces;
    std::vector<uint16_t> starts;  // per character of the block's words
  };

  template <typename F>
  void build(const Model& model, const PieceTrie& trie, Block& block, size_t begin, size_t end,
             std::vector<LatticeNode>& nodes, F& f, size_t t) {
    for (size_t w = begin; w < end; ++w) {
      const size_t n = words_.length(w);
      if (n == 0) continue;
      build_lattice(model, trie, words_.data(w), n, nodes);
      const size_t first = block.starts.size();
      block.starts.resize(first + n, 0);
      for (const LatticeNode& v : nodes) {
        block.pieces.push_back(v.piece);
        ++block.starts[first + v.begin];
      }
      f(t, w, nodes);
    }
  }

  template <typename F>
  void filter(const Model& model, Block& block, size_t begin, size_t end, std::vector<LatticeNode>& nodes, F& f,
              size_t t) {
    size_t read = 0, write = 0, ch = 0;
    for (size_t w = begin; w < end; ++w) {
      const size_t n = words_.length(w);
      if (n == 0) continue;
      nodes.clear();
      for (uint32_t pos = 0; pos < n; ++pos, ++ch) {
        const uint16_t count = block.starts[ch];
        uint16_t kept = 0;
        bool has_single = false;
        for (uint16_t k = 0; k < count; ++k) {
          uint32_t piece = block.pieces[read++];
          if (piece != kUnkPiece && !renumber_.empty()) piece = renumber_[piece];
          if (piece == kNone) continue;
          block.pieces[write++] = piece;  // write <= read: a kept node takes a stored one's place
          ++kept;
          nodes.push_back(make_node(model, pos, piece));
          has_single |= nodes.back().end == pos + 1;
        }
        if (!has_single) {  // the one-character piece here went: its place is free
          block.pieces[write++] = kUnkPiece;
          ++kept;
          nodes.push_back(make_node(model, pos, kUnkPiece));
        }
        block.starts[ch] = kept;
      }
      f(t, w, nodes);
    }
    block.pieces.resize(write);
    if (block.pieces.capacity() > 2 * write + 1024) block.pieces.shrink_to_fit();
  }

  const Words& words_;
  size_t threads_;
  std::vector<Block> blocks_;
  bool built_ = false;
  std::vector<uint32_t> renumber_;  // since the last pass; empty: none
};

// Sums, per piece, count x the marginal probability of each lattice node of one word (HF's
// populate_marginal) into `expected`, in fixed point (x `scale`). A word short enough that no path
// can underflow a double is summed in probabilities (no logarithms); longer ones in log space with
// HF's log_sum_exp, in HF's order.
class MarginalSums {
 public:
  MarginalSums(const Model& model, double scale)
      : expected_(model.pieces.size(), 0), scale_(scale), unk_score_(model.unk_score) {}

  void add_word(const std::vector<LatticeNode>& nodes, size_t n, uint64_t count) {
    const double weight = static_cast<double>(count) * scale_;
    // Every node scores at least unk_score_ (< 0), so a path's probability is at least
    // exp(n x unk_score_), far above the smallest double while that is above exp(-600).
    if (static_cast<double>(n) * -unk_score_ < 600) {
      add_in_probabilities(nodes, n, weight);
    } else {
      add_in_logs(nodes, n, weight);
    }
  }

  std::vector<int64_t>& expected() { return expected_; }

 private:
  void add_in_probabilities(const std::vector<LatticeNode>& nodes, size_t n, double weight) {
    alpha_.assign(n + 1, 0);
    beta_.assign(n + 1, 0);
    alpha_[0] = 1;
    for (const LatticeNode& v : nodes) alpha_[v.end] += alpha_[v.begin] * v.prob;  // by begin
    beta_[n] = 1;
    for (size_t i = nodes.size(); i-- > 0;) beta_[nodes[i].begin] += nodes[i].prob * beta_[nodes[i].end];
    const double factor = weight / alpha_[n];
    for (const LatticeNode& v : nodes) {
      expected_[v.piece] += static_cast<int64_t>(factor * alpha_[v.begin] * v.prob * beta_[v.end] + 0.5);
    }
  }

  void add_in_logs(const std::vector<LatticeNode>& nodes, size_t n, double weight) {
    alpha_.assign(n + 1, 0);
    beta_.assign(n + 1, 0);
    seen_.assign(n + 1, 0);
    for (const LatticeNode& v : nodes) {  // by begin: alpha_[v.begin] is complete
      alpha_[v.end] = log_sum_exp(alpha_[v.end], alpha_[v.begin] + v.score, !seen_[v.end]);
      seen_[v.end] = 1;
    }
    // HF's beta: the nodes starting at a position, shortest first; beta_[n] = 0 (the end node).
    size_t k = nodes.size();
    for (size_t pos = n; pos-- > 0;) {
      const size_t last = k;
      while (k > 0 && nodes[k - 1].begin == pos) --k;
      for (size_t i = k; i < last; ++i) {
        beta_[pos] = log_sum_exp(beta_[pos], nodes[i].score + beta_[nodes[i].end], i == k);
      }
    }
    const double z = alpha_[n];
    for (const LatticeNode& v : nodes) {
      expected_[v.piece] += static_cast<int64_t>(weight * std::exp(alpha_[v.begin] + v.score + beta_[v.end] - z) + 0.5);
    }
  }

  std::vector<int64_t> expected_;
  double scale_;
  double unk_score_;
  std::vector<double> alpha_, beta_;
  std::vector<uint8_t> seen_;
};

// The fixed-point scale of the E step: 2^32, less when the corpus is so large that a piece's summed
// expectation (at most the corpus's characters) could overflow 63 bits.
double expectation_scale(const Words& words) {
  const int bits = std::min(32, 62 - static_cast<int>(std::bit_width(words.total_chars)));
  return std::ldexp(1.0, std::max(bits, 0));
}

// HF's run_e_step: per piece, the expected number of occurrences over the corpus.
std::vector<double> e_step(const Model& model, const Words& words, Lattices& lattices, size_t threads) {
  const double scale = expectation_scale(words);
  std::vector<MarginalSums> sums;
  for (size_t t = 0; t < threads; ++t) sums.emplace_back(model, scale);
  lattices.for_each(model, [&](size_t t, size_t w, const std::vector<LatticeNode>& nodes) {
    sums[t].add_word(nodes, words.length(w), words.count[w]);
  });
  std::vector<double> expected(model.pieces.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    int64_t total = 0;
    for (MarginalSums& s : sums) total += s.expected()[i];
    expected[i] = static_cast<double>(total) / scale;
  }
  return expected;
}

// HF's run_m_step: drops pieces expected fewer than 0.5 times, and scores the others
// digamma(expected) - digamma(sum of expected) (piece 0 stays, NaN). `renumber` receives each old
// piece's new number (kNone: dropped).
Pieces m_step(const Pieces& pieces, const std::vector<double>& expected, std::vector<uint32_t>& renumber) {
  Pieces kept;
  renumber.assign(pieces.size(), kNone);
  renumber[kUnkPiece] = kept.add_from(pieces, kUnkPiece, std::numeric_limits<double>::quiet_NaN());
  double sum = 0;
  for (uint32_t i = 1; i < pieces.size(); ++i) {
    if (expected[i] < kExpectedThreshold) continue;
    renumber[i] = kept.add_from(pieces, i, expected[i]);
    sum += expected[i];
  }
  const double log_sum = digamma(sum);
  for (uint32_t i = 1; i < kept.size(); ++i) kept.score(i) = digamma(kept.score(i)) - log_sum;
  return kept;
}

// The distinct words joined, each followed by a '\0' (HF's flat_string: counts ignored, empty words
// left out), and the positions that start no '\0'.
struct JoinedWords {
  std::vector<char32_t> text;
  std::vector<uint32_t> starts;
};

JoinedWords join_words(const Words& words) {
  JoinedWords j;
  j.text.reserve(words.chars.size() + words.size());
  for (size_t w = 0; w < words.size(); ++w) {
    if (words.length(w) == 0) continue;
    j.text.insert(j.text.end(), words.data(w), words.data(w) + words.length(w));
    j.text.push_back(0);
  }
  if (j.text.size() >= kNone) {
    throw BadInput("too many characters in the distinct words for the Unigram trainer (" +
                       std::to_string(j.text.size()) + ", at most " + std::to_string(kNone - 1) + ")",
                   "prune the word counts (--max-words)");
  }
  for (uint32_t i = 0; i < j.text.size(); ++i) {
    if (j.text[i] != 0) j.starts.push_back(i);
  }
  return j;
}

// The frequent substrings (rule 1 of the header): the lcp-intervals of the suffixes of the joined
// words, i.e. the internal nodes of their suffix tree. Only depths up to max_piece_length matter,
// so the suffixes are sorted on their first max_piece_length + 1 characters (through the first
// '\0', which ends every word: a '\0' compares equal to a '\0') — for those depths the intervals are
// the full suffix array's.
struct Substring {
  uint64_t score;  // occurrences x length
  uint32_t pos;    // into JoinedWords::text
  uint32_t length;
};

std::vector<Substring> frequent_substrings(const JoinedWords& j, size_t max_length, size_t threads) {
  const size_t depth = max_length + 1;
  const char32_t* t = j.text.data();
  // The common prefix of the suffixes at a and b, up to `depth`, a shared '\0' included.
  auto common = [&](uint32_t a, uint32_t b) {
    size_t k = 0;
    while (k < depth && t[a + k] == t[b + k]) {
      if (t[a + k++] == 0) break;
    }
    return k;
  };
  std::vector<uint32_t> order = j.starts;
  parallel_sort(
      order,
      [&](uint32_t a, uint32_t b) {
        for (size_t k = 0; k < depth; ++k) {
          if (t[a + k] != t[b + k]) return t[a + k] < t[b + k];
          if (t[a + k] == 0) return false;
        }
        return false;
      },
      threads);
  std::vector<Substring> out;
  struct Open {
    size_t lcp, left;
  };
  std::vector<Open> stack{{0, 0}};
  for (size_t i = 1; i <= order.size(); ++i) {
    const size_t lcp = i < order.size() ? common(order[i - 1], order[i]) : 0;
    size_t left = i - 1;
    while (lcp < stack.back().lcp) {
      const Open open = stack.back();
      stack.pop_back();
      left = open.left;
      const uint32_t pos = order[open.left];
      const bool has_boundary = std::find(t + pos, t + pos + open.lcp, 0) != t + pos + open.lcp;
      if (open.lcp >= 2 && open.lcp <= max_length && !has_boundary) {
        out.push_back(Substring{(i - open.left) * open.lcp, pos, static_cast<uint32_t>(open.lcp)});
      }
    }
    if (lcp > stack.back().lcp) stack.push_back(Open{lcp, left});
  }
  return out;
}

// HF's make_seed_sentence_pieces: piece 0 (the placeholder), the characters, then the frequent
// substrings, until seed_size seeds; scores as log probabilities.
Pieces make_seeds(const Words& words, const UnigramTrainerOptions& options) {
  std::vector<uint64_t> char_count(kMaxCodePoint + 1, 0);
  for (size_t w = 0; w < words.size(); ++w) {
    for (size_t k = 0; k < words.length(w); ++k) {
      if (words.data(w)[k] != 0) char_count[words.data(w)[k]] += words.count[w];
    }
  }
  std::vector<char32_t> chars;
  for (char32_t c = 0; c <= kMaxCodePoint; ++c) {
    if (char_count[c] > 0) chars.push_back(c);
  }
  std::sort(chars.begin(), chars.end(), [&](char32_t a, char32_t b) {
    return char_count[a] != char_count[b] ? char_count[a] > char_count[b] : a > b;
  });
  const JoinedWords joined = join_words(words);
  std::vector<Substring> subs = frequent_substrings(joined, options.max_piece_length, options.threads);
  const char32_t* t = joined.text.data();
  std::sort(subs.begin(), subs.end(), [&](const Substring& a, const Substring& b) {
    if (a.score != b.score) return a.score > b.score;
    return std::lexicographical_compare(t + b.pos, t + b.pos + b.length, t + a.pos, t + a.pos + a.length);
  });
  Pieces seeds;
  const char32_t placeholder[] = U"<UNK>";
  seeds.add(placeholder, 5, std::numeric_limits<double>::quiet_NaN());
  double sum = 0;
  for (char32_t c : chars) {
    seeds.add(&c, 1, static_cast<double>(char_count[c]));
    sum += static_cast<double>(char_count[c]);
  }
  for (const Substring& sub : subs) {
    seeds.add(t + sub.pos, sub.length, static_cast<double>(sub.score));
    sum += static_cast<double>(sub.score);
    if (seeds.size() - 1 >= options.seed_size) break;
  }
  const double log_sum = std::log(sum);
  for (uint32_t i = 1; i < seeds.size(); ++i) seeds.score(i) = std::log(seeds.score(i)) - log_sum;
  return seeds;
}

// HF's Lattice::viterbi: the pieces of the best path through `nodes` (of a string of n code points)
// into `path`, leaving out node `skip` (kNone: none); returns its score. At equal scores the node that
// starts first wins. -infinity when no path is left.
double viterbi(const std::vector<LatticeNode>& nodes, size_t n, size_t skip, std::vector<uint32_t>& path,
               std::vector<double>& best, std::vector<uint32_t>& back) {
  best.assign(n + 1, 0);
  back.assign(n + 1, kNone);
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const LatticeNode& v = nodes[i];
    if (i == skip || (v.begin > 0 && back[v.begin] == kNone)) continue;
    const double score = best[v.begin] + v.score;
    if (back[v.end] == kNone || score > best[v.end]) {
      best[v.end] = score;
      back[v.end] = i;
    }
  }
  path.clear();
  if (back[n] == kNone) return -std::numeric_limits<double>::infinity();
  for (size_t pos = n; pos > 0; pos = nodes[back[pos]].begin) path.push_back(nodes[back[pos]].piece);
  std::reverse(path.begin(), path.end());
  return best[n];
}

// HF's prune_sentence_pieces, first half: whether each piece must stay, and the pieces of its
// second-best segmentation (when it is its own best one). A one-character piece has no other
// segmentation and stays; a longer one is compared with the best path that avoids it.
struct Alternatives {
  std::vector<uint8_t> always_keep;
  std::vector<std::vector<uint32_t>> pieces;
};

Alternatives find_alternatives(const Model& model, size_t threads) {
  const Pieces& pieces = model.pieces;
  const PieceTrie trie(pieces);
  Alternatives alt{std::vector<uint8_t>(pieces.size(), 1), std::vector<std::vector<uint32_t>>(pieces.size())};
  alt.always_keep[kUnkPiece] = 0;
  for_blocks(threads, pieces.size(), [&](size_t, size_t begin, size_t end) {
    std::vector<LatticeNode> nodes;
    std::vector<uint32_t> path;
    std::vector<double> best;
    std::vector<uint32_t> back;
    for (uint32_t id = std::max<uint32_t>(static_cast<uint32_t>(begin), 1); id < end; ++id) {
      const uint32_t n = pieces.length(id);
      if (n == 1) continue;  // the only path: always kept, no alternatives
      build_lattice(model, trie, pieces.data(id), n, nodes);
      size_t whole = kNone;
      for (uint32_t i = 0; i < nodes.size() && nodes[i].begin == 0; ++i) {
        if (nodes[i].end == n) whole = i;
      }
      const double own = nodes[whole].score;
      const double other = viterbi(nodes, n, whole, path, best, back);
      if (own >= other) {
        alt.pieces[id] = path;
      } else {
        alt.always_keep[id] = 0;
      }
    }
  });
  return alt;
}

// Per piece, how many times the words' Viterbi paths use it (times the word counts).
std::vector<uint64_t> viterbi_counts(const Model& model, const Words& words, Lattices& lattices, size_t threads) {
  std::vector<std::vector<uint64_t>> counts(threads, std::vector<uint64_t>(model.pieces.size(), 0));
  struct Scratch {
    std::vector<uint32_t> path;
    std::vector<double> best;
    std::vector<uint32_t> back;
  };
  std::vector<Scratch> scratch(threads);
  lattices.for_each(model, [&](size_t t, size_t w, const std::vector<LatticeNode>& nodes) {
    Scratch& s = scratch[t];
    viterbi(nodes, words.length(w), kNone, s.path, s.best, s.back);
    for (uint32_t piece : s.path) counts[t][piece] += words.count[w];
  });
  for (size_t t = 1; t < threads; ++t) {
    for (size_t i = 0; i < counts[0].size(); ++i) counts[0][i] += counts[t][i];
  }
  return std::move(counts[0]);
}

// HF's prune_sentence_pieces: keeps piece 0, the pieces without alternatives that a path uses or must
// stay, and of the rest those whose removal would cost the most likelihood, up to
// max(vocab_size x 1.1, pieces x shrinking_factor).
Pieces prune(const Model& model, const Words& words, Lattices& lattices, const UnigramTrainerOptions& options,
             std::vector<uint32_t>& renumber) {
  const Pieces& pieces = model.pieces;
  const Alternatives alt = find_alternatives(model, options.threads);
  const std::vector<uint64_t> freq = viterbi_counts(model, words, lattices, options.threads);
  renumber.assign(pieces.size(), kNone);
  double sum = 0;
  for (uint64_t f : freq) sum += static_cast<double>(f);
  const double log_sum = std::log(sum);
  Pieces kept;
  renumber[kUnkPiece] = kept.add_from(pieces, kUnkPiece, pieces.score(kUnkPiece));
  std::vector<std::pair<uint32_t, double>> candidates;  // (piece, loss)
  for (uint32_t id = 1; id < pieces.size(); ++id) {
    if (freq[id] == 0 && !alt.always_keep[id]) continue;  // on no Viterbi path
    if (alt.pieces[id].empty()) {
      renumber[id] = kept.add_from(pieces, id, pieces.score(id));
      continue;
    }
    if (freq[id] == 0) continue;  // HF's guard against NaN
    const double f = static_cast<double>(freq[id]);
    const double logprob = std::log(f) - log_sum;
    // HF multiplies by the number of pieces - 1 here (SentencePiece: the alternatives' number - 1).
    const double log_sum_alt = std::log(sum + f * static_cast<double>(pieces.size() - 1));
    double logprob_alt = 0;
    for (uint32_t a : alt.pieces[id]) logprob_alt += std::log(static_cast<double>(freq[a]) + f) - log_sum_alt;
    candidates.emplace_back(id, f / static_cast<double>(words.total) * (logprob - logprob_alt));
  }
  const size_t desired = options.vocab_size * 11 / 10;
  const size_t pruned_size = std::max(
      desired, static_cast<size_t>(static_cast<double>(pieces.size()) * options.shrinking_factor));
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [id, loss] : candidates) {
    if (kept.size() == pruned_size) break;  // HF's test: equality, checked before each candidate
    renumber[id] = kept.add_from(pieces, id, pieces.score(id));
  }
  return kept;
}

// Every character of the words and of initial_alphabet, in code-point order.
std::vector<char32_t> required_chars(const Words& words, const UnigramTrainerOptions& options) {
  std::vector<uint8_t> seen(kMaxCodePoint + 1, 0);
  for (char32_t c : words.chars) seen[c] = 1;
  for (char32_t c : options.initial_alphabet) seen[c] = 1;
  std::vector<char32_t> out;
  for (char32_t c = 0; c <= kMaxCodePoint; ++c) {
    if (seen[c]) out.push_back(c);
  }
  return out;
}

// Whether unk_token must be added before the special tokens (it is set and not one of them).
bool adds_unk(const UnigramTrainerOptions& options) {
  const auto& specials = options.special_tokens;
  return !options.unk_token.empty() && std::find(specials.begin(), specials.end(), options.unk_token) == specials.end();
}

// HF errs when the characters alone exceed vocab_size, and returns a larger vocabulary than asked when
// the specials tip it over; we name the numbers instead.
void check_required_fit(size_t required, const UnigramTrainerOptions& options) {
  const size_t fixed = options.special_tokens.size() + (adds_unk(options) ? 1 : 0);
  if (required + fixed <= options.vocab_size) return;
  throw BadInput("vocab size " + std::to_string(options.vocab_size) + " cannot hold the " + std::to_string(required) +
                     " characters of the words" +
                     (fixed > 0 ? " and " + std::to_string(fixed) + " special tokens" : ""),
                 "use --vocab-size " + std::to_string(required + fixed) + " or more");
}

// HF's finalize: the required characters (their model score, or the smallest score plus 0.0001 per
// character missing so far), then the model's pieces in order, up to vocab_size tokens with the
// specials and unk; sorted by score (stable), behind [unk] and the special tokens. A piece or
// character equal to a special token is left out (HF would list it twice).
TrainedUnigram finalize(const Model& model, const std::vector<char32_t>& required,
                        const UnigramTrainerOptions& options) {
  TrainedUnigram out;
  if (adds_unk(options)) {
    out.pieces.emplace_back(options.unk_token, 0);
    out.unk_id = 0;
  }
  for (uint32_t i = 0; i < options.special_tokens.size(); ++i) {
    if (options.special_tokens[i] == options.unk_token) out.unk_id = static_cast<uint32_t>(out.pieces.size());
    out.pieces.emplace_back(options.special_tokens[i], 0);
  }
  std::unordered_set<std::string> inserted;
  for (const auto& [text, score] : out.pieces) inserted.insert(text);
  const size_t target = options.vocab_size - out.pieces.size();
  const Pieces& pieces = model.pieces;
  std::unordered_map<char32_t, double> model_char;
  for (uint32_t i = 1; i < pieces.size(); ++i) {
    if (pieces.length(i) == 1) model_char.emplace(pieces.data(i)[0], pieces.score(i));
  }
  std::vector<std::pair<std::string, double>> body;
  double penalty = 0;
  for (char32_t c : required) {
    const auto it = model_char.find(c);
    const double score = it != model_char.end() ? it->second : model.min_score + penalty;
    if (it == model_char.end()) penalty += kRequiredCharPenalty;
    std::string text = utf8_of(&c, 1);
    if (inserted.insert(text).second) body.emplace_back(std::move(text), score);
  }
  for (uint32_t i = 1; i < pieces.size() && body.size() < target; ++i) {
    std::string text = utf8_of(pieces.data(i), pieces.length(i));
    if (inserted.insert(text).second) body.emplace_back(std::move(text), pieces.score(i));
  }
  std::stable_sort(body.begin(), body.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out.pieces.insert(out.pieces.end(), std::make_move_iterator(body.begin()), std::make_move_iterator(body.end()));
  return out;
}

}  // namespace

void validate(const UnigramTrainerOptions& options) {
  if (options.vocab_size == 0) throw BadInput("vocab size must be at least 1");
  validate_special_tokens(options.special_tokens);
  if (options.max_piece_length == 0 || options.max_piece_length > kMaxPieceLength) {
    throw BadInput("max piece length must be between 1 and " + std::to_string(kMaxPieceLength));
  }
  if (!(options.shrinking_factor > 0 && options.shrinking_factor < 1)) {
    throw BadInput("shrinking factor must be between 0 and 1 (exclusive)", "HF's default is 0.75");
  }
  if (options.seed_size == 0) throw BadInput("seed size must be at least 1");
  if (options.n_sub_iterations == 0) throw BadInput("EM sub-iterations must be at least 1");
  validate_initial_alphabet(options.initial_alphabet);
}

UnigramTrainer::UnigramTrainer(UnigramTrainerOptions options) : options_(std::move(options)) {
  validate(options_);
  if (options_.threads == 0) options_.threads = std::max(1u, std::thread::hardware_concurrency());
}

TrainedUnigram UnigramTrainer::train(const WordCounts& counts, const TrainingProgress& progress) const {
  if (counts.empty()) throw BadInput("no words to train on: the corpus is empty", "check --input and --format");
  const Words words = decode_words(counts);
  const std::vector<char32_t> required = required_chars(words, options_);
  check_required_fit(required.size(), options_);
  if (progress) progress("Suffix array seeds", 0, words.size());
  Model model(make_seeds(words, options_));
  if (progress) progress("Suffix array seeds", words.size(), words.size());
  TrainedUnigram stats;
  stats.seed_pieces = model.pieces.size() - 1;
  const size_t desired = options_.vocab_size * 11 / 10;
  // HF's estimate of the EM iterations (`as usize`: a negative estimate is 0).
  const double loops = (std::log(static_cast<double>(desired)) - std::log(static_cast<double>(model.pieces.size()))) /
                       std::log(options_.shrinking_factor);
  const size_t expected_updates = (loops > 0 ? static_cast<size_t>(loops) + 1 : 1) * options_.n_sub_iterations;
  Lattices lattices(words, options_.threads);
  std::vector<uint32_t> renumber;
  while (true) {
    for (size_t iter = 0; iter < options_.n_sub_iterations; ++iter) {
      const std::vector<double> expected = e_step(model, words, lattices, options_.threads);
      model = Model(m_step(model.pieces, expected, renumber));
      lattices.renumber(renumber);
      ++stats.em_iterations;
      if (progress) progress("EM training", stats.em_iterations, expected_updates);
    }
    if (model.pieces.size() <= desired) break;
    const size_t before = model.pieces.size();
    model = Model(prune(model, words, lattices, options_, renumber));
    lattices.renumber(renumber);
    ++stats.prunings;
    if (model.pieces.size() == before) break;  // nothing more to prune (HF would loop for ever)
  }
  TrainedUnigram result = finalize(model, required, options_);
  result.seed_pieces = stats.seed_pieces;
  result.em_iterations = stats.em_iterations;
  result.prunings = stats.prunings;
  result.required_chars = required.size();
  result.words = words.total;
  result.distinct_words = words.size();
  return result;
}

}  // namespace bertpt::tokenizer
