#include "tokenizer/models/unigram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>

#include "common/error.h"
#include "tokenizer/serde_float.h"

namespace bertpt::tokenizer {
namespace {

// HF's K_UNK_PENALTY: an unknown character scores this much below the lowest piece.
constexpr double kUnkPenalty = 10.0;

// Bytes of the UTF-8 character whose lead byte is `b` (1 for a stray byte; words are valid UTF-8).
inline uint32_t utf8_length(unsigned char b) { return b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; }

// `FILE: field "NAME" PROBLEM`, the form of JsonValue::fail.
[[noreturn]] void fail_field(const std::string& file, const std::string& name, const std::string& problem,
                             const std::string& hint = {}) {
  throw BadInput(file + ": field \"" + name + "\" " + problem, hint);
}

struct Scratch {
  std::vector<double> score;
  std::vector<uint32_t> start;
  std::vector<uint32_t> id;
};

}  // namespace

Unigram::Unigram(std::vector<std::pair<std::string, double>> pieces, std::optional<uint32_t> unk_id, bool byte_fallback,
                 const UnigramSource& source)
    : unk_id_(unk_id), byte_fallback_(byte_fallback) {
  const std::string& file = source.file;
  const std::string& field = source.vocab_field;
  if (pieces.size() >= kNone) fail_field(file, field, "has too many pieces");
  min_score_ = INFINITY;  // HF's starting value: an empty vocabulary keeps it
  scores_.reserve(pieces.size());
  spans_.reserve(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    const double s = pieces[i].second;
    if (!std::isfinite(s)) {
      fail_field(file, field + "[" + std::to_string(i) + "][1]", "is not a finite number",
                 "a piece's score is a log-probability, e.g. -7.25");
    }
    if (arena_.size() + pieces[i].first.size() >= kNone) fail_field(file, field, "is too large");
    spans_.emplace_back(uint32_t(arena_.size()), uint32_t(pieces[i].first.size()));
    arena_ += pieces[i].first;
    scores_.push_back(s);
    min_score_ = std::min(min_score_, s);
  }
  unk_score_ = min_score_ - kUnkPenalty;
  if (unk_id_ && *unk_id_ >= pieces.size()) {
    fail_field(file, source.unk_id_field,
               "is " + std::to_string(*unk_id_) + ", past the vocabulary of " + std::to_string(pieces.size()) +
                   " pieces",
               "unk_id is the position of the unknown piece in vocab");
  }
  build_trie(source);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = token_to_id(name).value_or(kNone);
  }
}

void Unigram::build_trie(const UnigramSource& source) {
  auto piece = [&](uint32_t id) { return std::string_view(arena_).substr(spans_[id].first, spans_[id].second); };
  std::vector<uint32_t> order(scores_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  // char_traits<char> compares as unsigned char, so children come out sorted by byte.
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return piece(a) < piece(b); });
  for (size_t k = 1; k < order.size(); ++k) {
    if (piece(order[k]) == piece(order[k - 1])) {
      fail_field(source.file, source.vocab_field + "[" + std::to_string(order[k]) + "][0]",
                 "is '" + std::string(piece(order[k])) + "', a duplicate of piece " + std::to_string(order[k - 1]),
                 "every piece must appear once in the vocabulary");
    }
  }
  // Breadth-first: a node's children are appended together when the node is expanded. Each queue entry
  // is a node with the range of `order` (sorted pieces) that pass through it, at byte depth `depth`.
  struct Pending {
    uint32_t node, lo, hi, depth;
  };
  std::vector<uint32_t> first_child{0}, token{kNone};
  std::vector<uint16_t> child_count{0};
  std::vector<unsigned char> label{0};
  std::deque<Pending> queue{{0, 0, uint32_t(order.size()), 0}};
  while (!queue.empty()) {
    const Pending p = queue.front();
    queue.pop_front();
    uint32_t lo = p.lo;
    if (lo < p.hi && piece(order[lo]).size() == p.depth) token[p.node] = order[lo++];
    first_child[p.node] = uint32_t(label.size());
    while (lo < p.hi) {
      const unsigned char b = static_cast<unsigned char>(piece(order[lo])[p.depth]);
      uint32_t hi = lo + 1;
      while (hi < p.hi && static_cast<unsigned char>(piece(order[hi])[p.depth]) == b) ++hi;
      const uint32_t node = uint32_t(label.size());
      first_child.push_back(0);
      child_count.push_back(0);
      label.push_back(b);
      token.push_back(kNone);
      ++child_count[p.node];
      queue.push_back({node, lo, hi, p.depth + 1});
      lo = hi;
    }
  }
  build_double_array(first_child, child_count, label, token);
}

namespace {

// The free cells of a double array under construction, as darts-clone keeps them: cells come in
// blocks of 256, the free cells of the last kOpenBlocks blocks are in a circular list (searched for a
// base), and older blocks are closed (their free cells stay unused), which bounds each search.
class FreeCells {
 public:
  static constexpr uint32_t kBlock = 256, kOpenBlocks = 16;

  explicit FreeCells(std::vector<uint32_t>& check) : check_(check) {}
  uint32_t head() const { return head_; }
  uint32_t next(uint32_t cell) const { return next_[cell]; }
  bool empty() const { return head_ == kEnd; }

  // Appends a block of free cells (check = `free_mark`), closing the oldest open block past the limit.
  void add_block(uint32_t free_mark) {
    const uint32_t begin = uint32_t(check_.size());
    check_.resize(begin + kBlock, free_mark);
    next_.resize(begin + kBlock);
    prev_.resize(begin + kBlock);
    for (uint32_t c = begin; c < begin + kBlock; ++c) link(c);
    if ((begin / kBlock) - closed_blocks_ >= kOpenBlocks) close_block(free_mark);
  }
  // Marks `cell` as taken.
  void take(uint32_t cell) {
    if (next_[cell] == kEnd && prev_[cell] == kEnd && head_ != cell) return;  // in a closed block
    unlink(cell);
  }

  static constexpr uint32_t kEnd = 0xFFFFFFFFu;

 private:
  void link(uint32_t c) {
    if (head_ == kEnd) {
      head_ = next_[c] = prev_[c] = c;
      return;
    }
    const uint32_t tail = prev_[head_];
    next_[tail] = c;
    prev_[c] = tail;
    next_[c] = head_;
    prev_[head_] = c;
  }
  void unlink(uint32_t c) {
    if (next_[c] == c) {
      head_ = kEnd;
    } else {
      next_[prev_[c]] = next_[c];
      prev_[next_[c]] = prev_[c];
      if (head_ == c) head_ = next_[c];
    }
    next_[c] = prev_[c] = kEnd;
  }
  void close_block(uint32_t free_mark) {
    const uint32_t begin = closed_blocks_++ * kBlock;
    for (uint32_t c = begin; c < begin + kBlock; ++c) {
      if (check_[c] == free_mark && next_[c] != kEnd) unlink(c);
    }
  }

  std::vector<uint32_t>& check_;
  std::vector<uint32_t> next_, prev_;
  uint32_t head_ = kEnd;
  uint32_t closed_blocks_ = 0;
};

}  // namespace

void Unigram::build_double_array(const std::vector<uint32_t>& first_child, const std::vector<uint16_t>& child_count,
                                 const std::vector<unsigned char>& label, const std::vector<uint32_t>& token) {
  std::vector<uint32_t> check, base;
  FreeCells free(check);
  free.add_block(kNone);
  check[0] = kNone - 1;  // the root: taken, and the parent of nothing by this mark
  free.take(0);
  std::vector<uint32_t> position(label.size());
  for (uint32_t node = 0; node < label.size(); ++node) {  // breadth-first: parents are placed first
    const uint32_t count = child_count[node];
    if (count == 0) continue;
    const unsigned char* labels = &label[first_child[node]];
    // A base whose cells for these labels are all free: tried at each free cell of the open blocks,
    // else in a new block.
    uint32_t found = FreeCells::kEnd;
    for (uint32_t f = free.empty() ? FreeCells::kEnd : free.head(); f != FreeCells::kEnd;) {
      if (f >= labels[0]) {
        const uint32_t b = f - labels[0];
        uint32_t i = 1;
        while (i < count && b + labels[i] < check.size() && check[b + labels[i]] == kNone) ++i;
        if (i == count) {
          found = b;
          break;
        }
      }
      f = free.next(f);
      if (f == free.head()) break;
    }
    if (found == FreeCells::kEnd) {
      found = uint32_t(check.size());
      free.add_block(kNone);
    }
    base.resize(check.size());
    base[position[node]] = found;
    for (uint32_t i = 0; i < count; ++i) {
      check[found + labels[i]] = position[node];
      free.take(found + labels[i]);
      position[first_child[node] + i] = found + labels[i];
    }
  }
  // child() bounds-checks, so the free cells past the last one taken may go.
  size_t size = check.size();
  while (size > 1 && check[size - 1] == kNone) --size;
  cells_.assign(size, Cell{});
  base.resize(check.size());
  for (size_t p = 0; p < size; ++p) {
    cells_[p].base = base[p];
    cells_[p].check = check[p];
  }
  for (uint32_t node = 0; node < label.size(); ++node) {
    Cell& cell = cells_[position[node]];
    cell.token = token[node];
    cell.score = token[node] == kNone ? 0.0 : scores_[token[node]];
  }
}

std::shared_ptr<const Unigram> Unigram::from_json(const JsonFields& f) {
  const JsonValue vocab = f.value("vocab");
  const nlohmann::json& entries = vocab.array();
  std::vector<std::pair<std::string, double>> pieces;
  pieces.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const nlohmann::json& e = entries[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
      // The slow path, only to word the error: JsonValue names the element.
      const JsonValue entry = vocab.element(i);
      if (entry.array().size() != 2) {
        entry.fail("has " + std::to_string(e.size()) + " elements, expected [piece, score]");
      }
      entry.element(0).str();
      entry.element(1).number();
    }
    // The score as tokenizers holds it after reading the file (serde_float.h: not always the nearest
    // double), so that exact ties between segmentations break as they do in HF.
    pieces.emplace_back(e[0].get<std::string>(), serde_json_f64(e[1].get<double>()));
  }
  std::optional<uint32_t> unk_id;
  if (const std::optional<JsonValue> v = f.optional("unk_id")) unk_id = json_token_id(*v);
  const bool byte_fallback = f.boolean_or("byte_fallback", false);
  return std::make_shared<const Unigram>(std::move(pieces), unk_id, byte_fallback,
                                         UnigramSource{f.file(), f.name("vocab"), f.name("unk_id")});
}

nlohmann::ordered_json Unigram::to_json() const {
  nlohmann::ordered_json model;
  model["type"] = "Unigram";
  model["unk_id"] = unk_id_ ? nlohmann::ordered_json(*unk_id_) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json vocab = nlohmann::ordered_json::array();
  auto& list = vocab.get_ref<nlohmann::ordered_json::array_t&>();
  list.reserve(scores_.size());
  for (uint32_t id = 0; id < scores_.size(); ++id) {
    list.push_back(nlohmann::ordered_json::array({std::string(id_to_token(id)), scores_[id]}));
  }
  model["vocab"] = std::move(vocab);
  model["byte_fallback"] = byte_fallback_;
  return model;
}

std::optional<uint32_t> Unigram::token_to_id(std::string_view token) const {
  uint32_t node = 0;
  for (const char c : token) {
    node = child(node, static_cast<unsigned char>(c));
    if (node == kNone) return std::nullopt;
  }
  if (cells_[node].token == kNone) return std::nullopt;
  return cells_[node].token;
}

std::string_view Unigram::id_to_token(uint32_t id) const {
  if (id >= spans_.size()) return {};
  return std::string_view(arena_).substr(spans_[id].first, spans_[id].second);
}

void Unigram::best_path(std::string_view word, std::vector<Segment>& path) const {
  static thread_local Scratch s;
  const auto* p = reinterpret_cast<const unsigned char*>(word.data());
  const uint32_t n = uint32_t(word.size());
  s.score.assign(n + 1, 0.0);
  s.start.assign(n + 1, kNone);
  s.id.resize(n + 1);
  // Offers the path ending with piece `id` over [from, to): kept only if strictly better (HF's rule).
  auto offer = [&](uint32_t from, uint32_t to, double score, uint32_t id) {
    if (s.start[to] == kNone || score > s.score[to]) {
      s.score[to] = score;
      s.start[to] = from;
      s.id[to] = id;
    }
  };
  for (uint32_t pos = 0; pos < n;) {
    const double base = s.score[pos];
    const uint32_t char_len = std::min(utf8_length(p[pos]), n - pos);
    bool has_single_char_piece = false;
    uint32_t node = 0;
    for (uint32_t k = pos; k < n; ++k) {
      node = child(node, p[k]);
      if (node == kNone) break;
      const Cell& cell = cells_[node];
      if (cell.token == kNone) continue;
      offer(pos, k + 1, cell.score + base, cell.token);
      if (k + 1 - pos == char_len) has_single_char_piece = true;
    }
    if (!has_single_char_piece) {
      const uint32_t to = pos + char_len;
      const double score = unk_score_ + base;
      if (s.start[to] == kNone || score > s.score[to]) {
        if (!unk_id_) {
          throw BadInput("Unigram: '" + std::string(word.substr(pos, char_len)) +
                             "' is in no piece of the vocabulary and the model has no unk_id",
                         "Hugging Face fails this encoding too (MissingUnkId)");
        }
        offer(pos, to, score, *unk_id_);
      }
    }
    pos += char_len;
  }
  path.clear();
  for (uint32_t end = n; end > 0; end = s.start[end]) path.push_back({s.start[end], end, s.id[end]});
  std::reverse(path.begin(), path.end());
}

void Unigram::append_unknown_run(std::string_view text, std::vector<uint32_t>& ids) const {
  if (const std::optional<uint32_t> id = token_to_id(text)) {
    ids.push_back(*id);
    return;
  }
  if (byte_fallback_) {
    bool all_bytes = true;
    for (const char c : text) all_bytes = all_bytes && byte_ids_[static_cast<unsigned char>(c)] != kNone;
    if (all_bytes) {
      for (const char c : text) ids.push_back(byte_ids_[static_cast<unsigned char>(c)]);
      return;
    }
  }
  ids.push_back(*unk_id_);  // a run exists only when unk_id does
}

void Unigram::encode_word(std::string_view word, std::vector<uint32_t>& ids) const {
  static thread_local std::vector<Segment> path;
  best_path(word, path);
  const uint32_t unk = unk_id_.value_or(kNone);
  size_t i = 0;
  while (i < path.size()) {
    if (path[i].id != unk) {
      ids.push_back(path[i++].id);
      continue;
    }
    const uint32_t begin = path[i].begin;
    while (i < path.size() && path[i].id == unk) ++i;
    append_unknown_run(word.substr(begin, path[i - 1].end - begin), ids);
  }
}

std::vector<std::string> Unigram::encode_pieces(std::string_view word) const {
  std::vector<Segment> path;
  best_path(word, path);
  std::vector<std::string> pieces;
  const uint32_t unk = unk_id_.value_or(kNone);
  for (size_t i = 0; i < path.size();) {
    const uint32_t begin = path[i].begin;
    if (path[i].id == unk) {
      while (i < path.size() && path[i].id == unk) ++i;
    } else {
      ++i;
    }
    pieces.emplace_back(word.substr(begin, path[i - 1].end - begin));
  }
  return pieces;
}

}  // namespace bertpt::tokenizer
