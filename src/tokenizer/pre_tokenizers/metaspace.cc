#include "tokenizer/pre_tokenizers/metaspace.h"

#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

const char* scheme_name(PrependScheme s) {
  switch (s) {
    case PrependScheme::kAlways: return "always";
    case PrependScheme::kFirst: return "first";
    case PrependScheme::kNever: return "never";
  }
  return "always";
}

}  // namespace

MetaspaceOptions MetaspaceOptions::from_json(const JsonFields& f) {
  MetaspaceOptions o;
  const JsonValue replacement = f.value("replacement");
  o.replacement = replacement.str();
  size_t len = 0;
  if (!o.replacement.empty()) {
    unicode::decode_utf8(reinterpret_cast<const unsigned char*>(o.replacement.data()), o.replacement.size(), len);
  }
  if (o.replacement.empty() || len != o.replacement.size()) {
    replacement.fail("is '" + o.replacement + "', expected one character", "sentencepiece uses \"\xE2\x96\x81\"");
  }
  if (f.has("prepend_scheme")) {
    const JsonValue v = f.value("prepend_scheme");
    const std::string name = v.str();
    if (name == "always") {
      o.prepend_scheme = PrependScheme::kAlways;
    } else if (name == "first") {
      o.prepend_scheme = PrependScheme::kFirst;
    } else if (name == "never") {
      o.prepend_scheme = PrependScheme::kNever;
    } else {
      v.fail("is '" + name + "', expected \"always\", \"first\" or \"never\"");
    }
  }
  // HF: add_prefix_space false stands for prepend_scheme "never" and contradicts any other (the
  // default "always" included); true changes nothing.
  if (const std::optional<JsonValue> v = f.optional("add_prefix_space"); v && !v->boolean()) {
    if (o.prepend_scheme != PrependScheme::kNever) {
      v->fail("is false, which contradicts prepend_scheme \"" + std::string(scheme_name(o.prepend_scheme)) + "\"",
              "drop add_prefix_space or set prepend_scheme to \"never\"");
    }
  }
  o.split = f.boolean_or("split", true);
  return o;
}

nlohmann::ordered_json MetaspaceOptions::to_json() const {
  nlohmann::ordered_json j;
  j["type"] = "Metaspace";
  j["replacement"] = replacement;
  j["prepend_scheme"] = scheme_name(prepend_scheme);
  j["split"] = split;
  return j;
}

void MetaspacePreTokenizer::split_span(const Words::Span& span, std::string_view bytes,
                                       std::vector<Words::Span>& out) const {
  if (!options_.split) {
    out.push_back(span);
    return;
  }
  const std::string& rep = options_.replacement;
  size_t piece_start = 0;
  for (size_t at = bytes.find(rep, 1); at != std::string_view::npos; at = bytes.find(rep, at + rep.size())) {
    Words::push_part(span, piece_start, at, out);
    piece_start = at;
  }
  Words::push_part(span, piece_start, bytes.size(), out);
}

void MetaspacePreTokenizer::pre_tokenize(Words& words) const {
  const std::string& rep = options_.replacement;
  std::vector<Words::Span> out;
  out.reserve(words.spans.size() * 2);
  std::string rewritten;
  for (const Words::Span& span : words.spans) {
    const std::string_view word = words.view(span);
    // HF replaces ' ' first, then tests whether the word starts with the replacement.
    const bool starts_with_space = word.starts_with(' ') || word.starts_with(rep);
    const bool prepend = !starts_with_space && (options_.prepend_scheme == PrependScheme::kAlways ||
                                                (options_.prepend_scheme == PrependScheme::kFirst && span.at_origin));
    if (!prepend && (rep == " " || word.find(' ') == std::string_view::npos)) {
      split_span(span, word, out);
      continue;
    }
    rewritten.clear();
    if (prepend) rewritten += rep;
    for (const char c : word) {
      if (c == ' ') {
        rewritten += rep;
      } else {
        rewritten.push_back(c);
      }
    }
    const Words::Span whole{uint32_t(words.arena.size()), uint32_t(words.arena.size() + rewritten.size()), true,
                            span.at_origin};
    words.arena += rewritten;
    split_span(whole, rewritten, out);
  }
  words.spans.swap(out);
}

}  // namespace bertpt::tokenizer
