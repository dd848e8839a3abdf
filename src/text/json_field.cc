#include "text/json_field.h"

#include "text/utf8.h"

namespace bertpt::text {

namespace {

constexpr int kMaxDepth = 256;  // bounded recursion: hostile input must not overflow the stack

struct Parser {
  std::string_view s;
  size_t i = 0;
  std::string error;
  uint64_t bad_surrogates = 0;

  bool fail(const std::string& what) {
    if (error.empty()) error = what + " at byte " + std::to_string(i + 1);
    return false;
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool expect(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return fail(std::string("expected '") + c + "'");
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool read_hex4(uint32_t& v) {
    if (i + 4 > s.size()) return fail("truncated \\u escape");
    v = 0;
    for (int k = 0; k < 4; ++k) {
      int h = hex(s[i + k]);
      if (h < 0) return fail("bad \\u escape");
      v = (v << 4) | uint32_t(h);
    }
    i += 4;
    return true;
  }

  // Parses a string starting at s[i] == '"'. Decodes into `out` when non-null.
  bool string(std::string* out) {
    if (i >= s.size() || s[i] != '"') return fail("expected string");
    ++i;
    size_t run = i;
    while (i < s.size()) {
      char c = s[i];
      if (c == '"') {
        if (out) out->append(s.data() + run, i - run);
        ++i;
        return true;
      }
      if (c != '\\') {
        ++i;
        continue;
      }
      if (out) out->append(s.data() + run, i - run);
      if (++i >= s.size()) break;
      char e = s[i++];
      char plain = 0;
      switch (e) {
        case '"': plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/': plain = '/'; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!read_hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < s.size() && s[i] == '\\' && s[i + 1] == 'u') {
            size_t save = i;
            i += 2;
            uint32_t lo = 0;
            if (!read_hex4(lo)) return false;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              i = save;  // the second escape is decoded on its own
            }
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) {
            ++bad_surrogates;
            cp = 0xFFFD;
          }
          if (out) append_utf8(*out, cp);
          break;
        }
        default: return fail(std::string("bad escape \\") + e);
      }
      if (plain && out) out->push_back(plain);
      run = i;
    }
    return fail("unterminated string");
  }

  bool literal(std::string_view word) {
    if (s.substr(i, word.size()) != word) return fail("unexpected character");
    i += word.size();
    return true;
  }

  bool number() {
    size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    auto digits = [&] {
      size_t b = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      return i > b;
    };
    if (!digits()) return fail("bad number");
    if (i < s.size() && s[i] == '.') {
      ++i;
      if (!digits()) return fail("bad number");
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      if (!digits()) return fail("bad number");
    }
    return i > start;
  }

  bool value(int depth) {
    ws();
    if (i >= s.size()) return fail("expected a value");
    if (depth > kMaxDepth) return fail("nesting too deep");
    switch (s[i]) {
      case '"': return string(nullptr);
      case '{': {
        ++i;
        ws();
        if (i < s.size() && s[i] == '}') {
          ++i;
          return true;
        }
        for (;;) {
          ws();
          if (!string(nullptr) || !expect(':') || !value(depth + 1)) return false;
          ws();
          if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
          }
          return expect('}');
        }
      }
      case '[': {
        ++i;
        ws();
        if (i < s.size() && s[i] == ']') {
          ++i;
          return true;
        }
        for (;;) {
          if (!value(depth + 1)) return false;
          ws();
          if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
          }
          return expect(']');
        }
      }
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }
};

}  // namespace

JsonFieldResult extract_json_string_field(std::string_view line, std::string_view field, std::string& out) {
  Parser p;
  p.s = line;
  JsonFieldResult result;
  bool found = false, not_string = false;
  std::string key;
  auto malformed = [&] {
    result.status = JsonFieldStatus::Malformed;
    result.error = p.error;
    return result;
  };
  out.clear();
  if (!p.expect('{')) return malformed();
  p.ws();
  if (p.i < line.size() && line[p.i] == '}') {
    ++p.i;
  } else {
    for (;;) {
      p.ws();
      key.clear();
      if (!p.string(&key) || !p.expect(':')) return malformed();
      p.ws();
      if (key == field) {
        if (p.i < line.size() && line[p.i] == '"') {
          out.clear();
          if (!p.string(&out)) return malformed();
          found = true;
          not_string = false;
        } else {
          if (!p.value(1)) return malformed();
          found = false;
          not_string = true;
        }
      } else if (!p.value(1)) {
        return malformed();
      }
      p.ws();
      if (p.i < line.size() && line[p.i] == ',') {
        ++p.i;
        continue;
      }
      if (!p.expect('}')) return malformed();
      break;
    }
  }
  p.ws();
  if (p.i != line.size()) {
    p.fail("unexpected text after the object");
    return malformed();
  }
  result.bad_surrogates = p.bad_surrogates;
  result.status = found ? JsonFieldStatus::Found : not_string ? JsonFieldStatus::NotString : JsonFieldStatus::Missing;
  return result;
}

}  // namespace bertpt::text
