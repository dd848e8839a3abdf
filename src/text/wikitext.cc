#include "text/wikitext.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#include "text/utf8.h"

namespace bertpt::text {

namespace {

bool starts_with_ci(std::string_view s, size_t at, std::string_view prefix) {
  if (s.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != prefix[i]) return false;
  }
  return true;
}

// Removes every `open`...`close` span, nested ones included ({{a {{b}} c}} goes whole). An unclosed
// span runs to the end of the text, as in WikiExtractor's dropNested.
std::string drop_nested(std::string_view s, std::string_view open, std::string_view close) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0, depth = 0;
  while (i < s.size()) {
    if (s.compare(i, open.size(), open) == 0) {
      ++depth, i += open.size();
    } else if (depth > 0 && s.compare(i, close.size(), close) == 0) {
      --depth, i += close.size();
    } else {
      if (depth == 0) out.push_back(s[i]);
      ++i;
    }
  }
  return out;
}

// <!-- comments -->, removed (an unclosed one runs to the end).
std::string drop_comments(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const size_t b = s.find("<!--", i);
    out.append(s.substr(i, b == std::string_view::npos ? std::string_view::npos : b - i));
    if (b == std::string_view::npos) break;
    const size_t e = s.find("-->", b + 4);
    i = e == std::string_view::npos ? s.size() : e + 3;
  }
  return out;
}

// The tag starting at s[i] ('<'): its lower-case name, whether it closes (</x>) or closes itself
// (<x/>), and its end. False when s[i] does not start a tag.
struct Tag {
  std::string name;
  bool closing = false, self_closing = false;
  size_t end = 0;  // one past '>'
};

bool parse_tag(std::string_view s, size_t i, Tag& t) {
  size_t j = i + 1;
  while (j < s.size() && s[j] == ' ') ++j;
  t.closing = j < s.size() && s[j] == '/';
  if (t.closing) ++j;
  const size_t name_start = j;
  if (j == s.size() || !std::isalpha(static_cast<unsigned char>(s[j]))) return false;  // "<36", "< x"
  while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
  // A name ends the tag or comes before its attributes: "<http://…>" and "<b2c-x>" are text.
  if (j == s.size() || (s[j] != ' ' && s[j] != '\t' && s[j] != '/' && s[j] != '>')) return false;
  t.name.assign(s.substr(name_start, j - name_start));
  for (char& c : t.name) c = char(std::tolower(static_cast<unsigned char>(c)));
  char quote = 0;
  for (; j < s.size(); ++j) {
    if (quote) {
      if (s[j] == quote) quote = 0;
    } else if (s[j] == '"' || s[j] == '\'') {
      quote = s[j];
    } else if (s[j] == '>') {
      t.self_closing = s[j - 1] == '/';
      t.end = j + 1;
      return true;
    } else if (s[j] == '<' || s[j] == '\n') {
      return false;
    }
  }
  return false;
}

// WikiExtractor's discardElements: their content goes with them. Placeholders replace <math> and
// <code> content; every other tag is dropped and its content kept.
bool discarded(const std::string& name) {
  static const char* const kNames[] = {
      "gallery",    "timeline", "noinclude",   "pre",    "table",  "tr",       "td",          "th",
      "caption",    "div",      "form",        "input",  "select", "option",   "textarea",    "ul",
      "li",         "ol",       "dl",          "dt",     "dd",     "menu",     "dir",         "ref",
      "references", "img",      "imagemap",    "source", "small",  "inputbox", "includeonly", "syntaxhighlight",
      "score",      "graph",    "templatedata"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

std::string handle_tags(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  int formula = 0, code = 0;
  while (i < s.size()) {
    Tag t;
    if (s[i] != '<' || !parse_tag(s, i, t)) {
      out.push_back(s[i++]);
      continue;
    }
    const bool placeholder = t.name == "math" || t.name == "code" || t.name == "chem" || t.name == "ce";
    if (t.closing || t.self_closing || (!discarded(t.name) && !placeholder)) {
      if (t.name == "br" || t.name == "p") out.push_back(t.name == "p" ? '\n' : ' ');
      i = t.end;
      continue;
    }
    // A discarded or placeholder element: skip to its matching close tag (nesting counted).
    size_t j = t.end, depth = 1;
    while (j < s.size() && depth > 0) {
      Tag u;
      if (s[j] == '<' && parse_tag(s, j, u) && u.name == t.name) {
        if (u.closing) --depth;
        else if (!u.self_closing) ++depth;
        j = u.end;
      } else {
        ++j;
      }
    }
    if (placeholder)
      out += t.name == "code" ? "codice_" + std::to_string(++code) : "formula_" + std::to_string(++formula);
    i = j;
  }
  return out;
}

bool is_url_start(std::string_view s, size_t i) {
  for (std::string_view scheme : {"http://", "https://", "ftp://", "ftps://", "//", "mailto:", "news:", "irc://"}) {
    if (starts_with_ci(s, i, scheme)) return true;
  }
  return false;
}

// [url label] -> label, [url] -> nothing; a '[' not followed by a URL stays.
std::string replace_external_links(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '[' && (i + 1 < s.size() && s[i + 1] != '[') && is_url_start(s, i + 1)) {
      const size_t e = s.find_first_of("]\n", i);
      if (e != std::string_view::npos && s[e] == ']') {
        const std::string_view inner = s.substr(i + 1, e - i - 1);
        const size_t sp = inner.find(' ');
        if (sp != std::string_view::npos) out.append(inner.substr(sp + 1));
        i = e + 1;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

// The visible text of [[inner]]: the label (after the last '|') or the target; nothing for files,
// images, categories, interlanguage and other namespaced links (WikiExtractor keeps only w:, wikt:).
std::string link_text(std::string_view inner) {
  const size_t bar = inner.find('|');
  std::string_view target = inner.substr(0, bar);
  while (!target.empty() && target.front() == ' ') target.remove_prefix(1);
  const size_t colon = target.find(':');
  if (colon != std::string_view::npos && colon > 0) {
    std::string prefix(target.substr(0, colon));
    for (char& c : prefix) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (prefix != "w" && prefix != "wiktionary" && prefix != "wikt") return {};
  }
  if (bar != std::string_view::npos) {
    std::string_view label = inner.substr(inner.rfind('|') + 1);
    if (!label.empty()) return std::string(label);
  }
  if (!target.empty() && target.front() == ':') target.remove_prefix(1);
  return std::string(target.substr(0, target.find('#') == 0 ? std::string_view::npos : target.find('#')));
}

std::string replace_internal_links(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 2, "[[") != 0) {
      out.push_back(s[i++]);
      continue;
    }
    size_t j = i + 2, depth = 1;  // nested links: a file's caption may hold [[links]]
    while (j < s.size() && depth > 0) {
      if (s.compare(j, 2, "[[") == 0) ++depth, j += 2;
      else if (s.compare(j, 2, "]]") == 0) --depth, j += 2;
      else ++j;
    }
    if (depth > 0) {  // unclosed: keep the text as it is
      out.append(s.substr(i));
      break;
    }
    std::string inner = replace_internal_links(s.substr(i + 2, j - i - 4));
    out += link_text(inner);
    while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) out.push_back(s[j++]);  // link trail
    i = j;
  }
  return out;
}

// __NOTOC__ and the other behaviour switches.
std::string drop_magic_words(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 2, "__") == 0) {
      size_t j = i + 2;
      while (j < s.size() && std::isupper(static_cast<unsigned char>(s[j]))) ++j;
      if (j > i + 2 && s.compare(j, 2, "__") == 0) {
        i = j + 2;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

// '''bold''' -> bold, ''italic'' -> "italic" (as WikiExtractor writes italics).
std::string replace_quotes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '\'' || i + 1 >= s.size() || s[i + 1] != '\'') {
      out.push_back(s[i++]);
      continue;
    }
    size_t n = 0;
    while (i + n < s.size() && s[i + n] == '\'') ++n;
    if (n == 2 || n == 5) out.push_back('"');
    i += n;
  }
  return out;
}

// HTML entities in the wikitext (the XML layer's are decoded by the parser): numeric ones and the
// named ones articles use; an unknown name stays as written.
std::string decode_entities(std::string_view s) {
  struct Named {
    const char* name;
    uint32_t cp;
  };
  static const Named kNamed[] = {
      {"nbsp", ' '},     {"amp", '&'},      {"lt", '<'},       {"gt", '>'},      {"quot", '"'},      {"apos", '\''},
      {"ndash", 0x2013}, {"mdash", 0x2014}, {"minus", 0x2212}, {"times", 0xD7},  {"hellip", 0x2026}, {"thinsp", 0x2009},
      {"deg", 0xB0},     {"prime", 0x2032}, {"Prime", 0x2033}, {"middot", 0xB7}, {"lsquo", 0x2018},  {"rsquo", 0x2019},
      {"ldquo", 0x201C}, {"rdquo", 0x201D}, {"euro", 0x20AC},  {"pound", 0xA3},  {"copy", 0xA9},     {"zwj", 0x200D},
      {"shy", 0xAD},     {"frac12", 0xBD},  {"plusmn", 0xB1},  {"sup2", 0xB2}};
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t semi = s[i] == '&' ? s.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 10 || semi == i + 1) {
      out.push_back(s[i++]);
      continue;
    }
    const std::string_view name = s.substr(i + 1, semi - i - 1);
    bool done = false;
    if (name[0] == '#') {
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      const std::string digits(name.substr(hex ? 2 : 1));
      char* end = nullptr;
      const unsigned long cp = digits.empty() ? 0 : std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
      if (!digits.empty() && end && *end == '\0') {
        // NUL, surrogates and values past U+10FFFF are no characters: the replacement character.
        const bool valid = cp != 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        append_utf8(out, valid ? uint32_t(cp) : 0xFFFD);
        done = true;
      }
    } else {
      for (const Named& n : kNamed) {
        if (name == n.name) {
          append_utf8(out, n.cp);
          done = true;
          break;
        }
      }
    }
    if (done) {
      i = semi + 1;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Spaces and tabs collapsed to one space.
std::string collapse_spaces(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\t') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
  }
  return out;
}

// A heading line "== Title ==": its title with a final '.', or false.
bool heading(std::string_view line, std::string& title, size_t& level) {
  level = 0;
  while (level < line.size() && line[level] == '=') ++level;
  if (level < 2) return false;
  std::string_view rest = line.substr(level);
  const size_t close = rest.rfind(std::string(level, '='));
  if (close == std::string_view::npos) return false;
  title = std::string(trim(rest.substr(0, close)));
  if (!title.empty() && title.back() != '!' && title.back() != '?') title += '.';
  return true;
}

// WikiExtractor's compact(): headings kept only when prose follows them, lists and table residue
// dropped, lines of only punctuation dropped.
std::string compact(std::string_view text) {
  std::string out;
  std::vector<std::pair<size_t, std::string>> headings;  // pending, by level
  bool empty_section = false;
  auto emit = [&](std::string_view line) {
    if (!out.empty()) out.push_back('\n');
    out.append(line);
  };
  for (size_t b = 0; b <= text.size();) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    const std::string_view line = trim(text.substr(b, e - b));
    b = e + 1;
    if (line.empty()) continue;
    std::string title;
    size_t level = 0;
    if (heading(line, title, level)) {
      while (!headings.empty() && headings.back().first >= level) headings.pop_back();
      headings.emplace_back(level, title);
      empty_section = true;
      continue;
    }
    const char c = line.front();
    if (c == ':') {
      size_t k = 0;
      while (k < line.size() && line[k] == ':') ++k;
      emit(trim(line.substr(k)));
    } else if (c == '*' || c == '#' || c == ';' || c == '{' || c == '|' || line.back() == '}') {
      continue;
    } else if ((c == '(' && line.back() == ')') || line.find_first_not_of(".-") == std::string_view::npos) {
      continue;
    } else if (!headings.empty()) {
      for (const auto& h : headings) emit(h.second);
      headings.clear();
      emit(line);
      empty_section = false;
    } else if (!empty_section) {
      emit(line);
    }
  }
  return out;
}

// Drops lines holding no letter or digit (WikiExtractor: "lines with only punctuations").
bool has_word(std::string_view line) {
  for (unsigned char c : line) {
    if (std::isalnum(c) || c >= 0x80) return true;
  }
  return false;
}

}  // namespace

bool is_redirect_wikitext(std::string_view wikitext) {
  size_t i = 0;
  while (i < wikitext.size() && std::isspace(static_cast<unsigned char>(wikitext[i]))) ++i;
  return starts_with_ci(wikitext, i, "#redirect");
}

std::string wikitext_to_text(std::string_view wikitext) {
  std::string s = drop_comments(wikitext);
  s = drop_nested(s, "{{", "}}");
  s = drop_nested(s, "{|", "|}");
  s = replace_external_links(s);
  s = replace_internal_links(s);
  s = drop_magic_words(s);
  s = replace_quotes(s);
  s = handle_tags(s);
  s = decode_entities(s);
  s = collapse_spaces(s);
  std::string text = compact(s);
  std::string out;
  out.reserve(text.size());
  for (size_t b = 0; b < text.size();) {
    size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    const std::string_view line(text.data() + b, e - b);
    if (has_word(line)) {
      if (!out.empty()) out.push_back('\n');
      out.append(line);
    }
    b = e + 1;
  }
  return out;
}

}  // namespace bertpt::text
