// A pre-tokenizer of Hugging Face tokenizers (tokenizer.json "pre_tokenizer"): splits a text into the
// words the model encodes one at a time, and may rewrite them (ByteLevel maps bytes to printable
// characters, Metaspace spaces to "▁"). Each kind is a file of this folder; read_pre_tokenizer()
// builds the one a tokenizer.json names.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_fields.h"

namespace bertpt::tokenizer {

// The words of one section of the input (the text between two added tokens). A word is a span of
// either `input` (pre-tokenizers that only split make no copies) or `arena` (rewritten bytes).
// Pre-tokenizers run in turn (a Sequence); each replaces `spans` with the finer or rewritten words.
struct Words {
  struct Span {
    uint32_t begin = 0, end = 0;
    bool in_arena = false;
    // The word starts the whole input (HF: its original offset is 0), what Metaspace's
    // prepend_scheme "first" asks.
    bool at_origin = false;
  };
  std::string_view input;
  std::string arena;
  std::vector<Span> spans;

  // One word: the whole section; `at_origin` when the section starts the input.
  void reset(std::string_view section, bool at_origin) {
    input = section;
    arena.clear();
    spans.clear();
    if (!section.empty()) spans.push_back({0, uint32_t(section.size()), false, at_origin});
  }
  std::string_view view(const Span& s) const {
    return (s.in_arena ? std::string_view(arena) : input).substr(s.begin, s.end - s.begin);
  }
  size_t size() const { return spans.size(); }
  std::string_view operator[](size_t i) const { return view(spans[i]); }

  // For a pre-tokenizer building the next list in `out`: bytes [from, to) of word `parent` (a view,
  // no copy), or new bytes (appended to the arena). `at_origin`: the piece starts the input.
  static void push_part(const Span& parent, size_t from, size_t to, std::vector<Span>& out) {
    if (to > from) {
      out.push_back(
          {uint32_t(parent.begin + from), uint32_t(parent.begin + to), parent.in_arena, parent.at_origin && from == 0});
    }
  }
  void push_bytes(std::string_view bytes, bool at_origin, std::vector<Span>& out) {
    if (bytes.empty()) return;
    const uint32_t begin = uint32_t(arena.size());
    arena.append(bytes);
    out.push_back({begin, uint32_t(arena.size()), true, at_origin});
  }
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces words.spans with this pre-tokenizer's split (and rewrite) of each word, in order.
  virtual void pre_tokenize(Words& words) const = 0;
  // The component's tokenizer.json object.
  virtual nlohmann::ordered_json to_json() const = 0;
  // The prefix its words' first tokens carry, which marks where a word starts (ByteLevel: "Ġ", the
  // space's byte-level character; Metaspace: its replacement "▁"); "" when it marks none. Whole-word
  // masking reads word boundaries from it.
  virtual std::string word_start_marker() const { return ""; }
};

using PreTokenizerPtr = std::shared_ptr<const PreTokenizer>;

// The pre-tokenizer a tokenizer.json object describes (pre_tokenizers/from_json.cc). Throws BadInput
// naming the field for an unknown "type" or a malformed option.
PreTokenizerPtr read_pre_tokenizer(const JsonValue& value);

}  // namespace bertpt::tokenizer
