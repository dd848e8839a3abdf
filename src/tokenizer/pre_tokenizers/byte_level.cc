#include "tokenizer/pre_tokenizers/byte_level.h"

#include <array>

#include "tokenizer/pre_tokenizers/char_classes.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

// GPT-2's bytes_char: the bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves; the other
// 68 bytes, in increasing order, get U+0100, U+0101, ... (so ' ' -> U+0120 'Ġ').
struct ByteMap {
  std::array<uint32_t, 256> code_point{};
  std::array<std::string, 256> utf8;
  // UTF-8 of each byte's character, packed: length, then up to two bytes (all are below U+0800).
  std::array<std::array<char, 3>, 256> packed{};
  // Inverse, for the characters U+0000..U+01FF (all 256 fall there); -1 for the others.
  std::array<int16_t, 512> byte_of{};

  ByteMap() {
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool itself = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      code_point[b] = itself ? b : next++;
    }
    byte_of.fill(-1);
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t cp = code_point[b];
      utf8[b] = cp < 0x80 ? std::string(1, char(cp)) : std::string{char(0xC0 | (cp >> 6)), char(0x80 | (cp & 0x3F))};
      packed[b] = {char(utf8[b].size()), utf8[b][0], utf8[b].size() > 1 ? utf8[b][1] : char(0)};
      byte_of[cp] = int16_t(b);
    }
  }
};

const ByteMap& byte_map() {
  static const ByteMap m;
  return m;
}

// The four classes the GPT-2 regex tells apart.
enum Gpt2Class : uint8_t { kOther, kLetter, kNumber, kSpace };

Gpt2Class gpt2_class(uint32_t cp) {
  const uint8_t f = char_classes::lookup(cp);
  return (f & char_classes::kLetter)   ? kLetter
         : (f & char_classes::kNumber) ? kNumber
         : (f & char_classes::kSpace)  ? kSpace
                                       : kOther;
}

const std::array<Gpt2Class, 128> kAsciiClass = [] {
  std::array<Gpt2Class, 128> t{};
  for (uint32_t c = 0; c < 128; ++c) t[c] = gpt2_class(c);
  return t;
}();

// The class of the character at p[i] (i < n) and its length in bytes.
inline Gpt2Class class_at(const unsigned char* p, size_t n, size_t i, size_t& len) {
  if (p[i] < 0x80) {
    len = 1;
    return kAsciiClass[p[i]];
  }
  return gpt2_class(unicode::decode_utf8(p + i, n - i, len));
}

// End of the run of characters of class `k` starting at `i`.
inline size_t run_end(const unsigned char* p, size_t n, size_t i, Gpt2Class k) {
  size_t len;
  while (i < n && class_at(p, n, i, len) == k) i += len;
  return i;
}

// Length of the contraction ('s 't 're 've 'm 'll 'd) at p[i] == '\'', 0 if none.
inline size_t contraction(const unsigned char* p, size_t n, size_t i) {
  if (i + 1 >= n) return 0;
  const unsigned char c = p[i + 1];
  if (c == 's' || c == 't' || c == 'm' || c == 'd') return 2;
  if (i + 2 >= n) return 0;
  const unsigned char d = p[i + 2];
  return ((c == 'r' && d == 'e') || (c == 'v' && d == 'e') || (c == 'l' && d == 'l')) ? 3 : 0;
}

// Calls emit(begin, end) for each match of the GPT-2 regex in `text`, in order. The alternatives,
// leftmost-first: a contraction; ' '? then a run of letters, of numbers or of others (the optional
// space is taken only when such a run follows it); whitespace: a run that reaches the end of the text
// entirely, a longer run less its last character (`\s+(?!\S)` backtracks by one so that the last
// space goes with the next word), a single character (`\s+`).
template <class Emit>
void split_gpt2(std::string_view text, Emit&& emit) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t len = 0;
    Gpt2Class run = class_at(p, n, i, len);
    size_t end = p[i] == '\'' ? i + contraction(p, n, i) : i;
    if (end == i) {
      size_t next_len;
      if (p[i] == ' ' && i + 1 < n) {
        const Gpt2Class next = class_at(p, n, i + 1, next_len);
        if (next != kSpace) run = next;
      }
      if (run != kSpace) {
        end = run_end(p, n, i + len, run);
      } else {
        size_t last = i, j = i + len;
        while (j < n && class_at(p, n, j, next_len) == kSpace) {
          last = j;
          j += next_len;
        }
        end = (j < n && last > i) ? last : j;
      }
    }
    emit(i, end);
    i = end;
  }
}

}  // namespace

void gpt2_split(std::string_view text, std::vector<std::pair<uint32_t, uint32_t>>& pieces) {
  split_gpt2(text, [&](size_t b, size_t e) { pieces.emplace_back(uint32_t(b), uint32_t(e)); });
}

uint32_t ByteLevel::byte_to_char(uint8_t b) { return byte_map().code_point[b]; }

const std::array<std::string, 256>& ByteLevel::alphabet() { return byte_map().utf8; }

void ByteLevel::append_byte_level(std::string_view bytes, std::string& out) {
  const ByteMap& m = byte_map();
  const size_t start = out.size();
  out.resize(start + 2 * bytes.size());
  char* w = out.data() + start;
  for (const char c : bytes) {
    const std::array<char, 3>& u = m.packed[static_cast<unsigned char>(c)];
    w[0] = u[1];
    w[1] = u[2];
    w += u[0];
  }
  out.resize(size_t(w - out.data()));
}

bool ByteLevel::append_token_bytes(std::string_view token, std::string& out) {
  const ByteMap& m = byte_map();
  const auto* p = reinterpret_cast<const unsigned char*>(token.data());
  const size_t start = out.size();
  for (size_t i = 0, len = 0; i < token.size(); i += len) {
    const uint32_t cp = unicode::decode_utf8(p + i, token.size() - i, len);
    if (cp >= m.byte_of.size() || m.byte_of[cp] < 0) {
      out.resize(start);
      return false;
    }
    out.push_back(char(m.byte_of[cp]));
  }
  return true;
}

void ByteLevel::pre_tokenize(Words& words) const {
  thread_local std::string arena;
  thread_local std::vector<Words::Span> out;
  thread_local std::string with_space;
  arena.clear();
  out.clear();
  for (const Words::Span& s : words.spans) {
    std::string_view word = words.view(s);
    if (word.empty()) continue;
    // HF: `if add_prefix_space && !normalized.starts_with(' ') { normalized.prepend(" ") }`, for each
    // word it is given (each section between added tokens, or each piece of an earlier Split).
    if (add_prefix_space_ && word[0] != ' ') {
      with_space.assign(1, ' ');
      with_space.append(word);
      word = with_space;
    }
    auto emit = [&](size_t b, size_t e) {
      const auto begin = uint32_t(arena.size());
      append_byte_level(word.substr(b, e - b), arena);
      out.push_back({begin, uint32_t(arena.size()), true, s.at_origin && b == 0});
    };
    if (use_regex_) {
      split_gpt2(word, emit);
    } else {
      emit(0, word.size());
    }
  }
  words.arena.swap(arena);
  words.spans.swap(out);
}

nlohmann::ordered_json byte_level_json(bool add_prefix_space, bool trim_offsets, bool use_regex) {
  nlohmann::ordered_json j;
  j["type"] = "ByteLevel";
  j["add_prefix_space"] = add_prefix_space;
  j["trim_offsets"] = trim_offsets;
  j["use_regex"] = use_regex;
  return j;
}

ByteLevelFlags read_byte_level_flags(const JsonFields& f) {
  return {f.boolean("add_prefix_space"), f.boolean("trim_offsets"), f.boolean_or("use_regex", true)};
}

nlohmann::ordered_json ByteLevel::to_json() const {
  return byte_level_json(add_prefix_space_, trim_offsets_, use_regex_);
}

std::shared_ptr<const ByteLevel> ByteLevel::from_json(const JsonFields& f) {
  const ByteLevelFlags b = read_byte_level_flags(f);
  return std::make_shared<const ByteLevel>(b.add_prefix_space, b.trim_offsets, b.use_regex);
}

}  // namespace bertpt::tokenizer
