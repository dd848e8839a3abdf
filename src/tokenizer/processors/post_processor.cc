#include "tokenizer/processors/post_processor.h"

#include <algorithm>

#include "common/error.h"
#include "tokenizer/models/model.h"
#include "tokenizer/pre_tokenizers/byte_level.h"

namespace bertpt::tokenizer {
namespace {

using ojson = nlohmann::ordered_json;
using Piece = PostProcessor::Piece;

// One piece of a template: {"Sequence": {"id": "A", "type_id": 0}} or {"SpecialToken": {...}}.
Piece read_piece(const JsonValue& item) {
  const nlohmann::json& j = item.json();
  if (!j.is_object() || j.size() != 1 || (!j.contains("Sequence") && !j.contains("SpecialToken"))) {
    item.fail("is " + j.dump() + ", expected {\"Sequence\": {...}} or {\"SpecialToken\": {...}}");
  }
  Piece piece;
  const JsonFields f = item.fields();
  if (j.contains("Sequence")) {
    const JsonFields body = f.object("Sequence");
    const std::string id = body.str("id");
    if (id != "A" && id != "B") body.fail("id", "is \"" + id + "\", expected \"A\" or \"B\"");
    piece.is_sequence = true;
    piece.sequence = id == "A" ? 0 : 1;
    piece.type_id = body.u32("type_id");
  } else {
    const JsonFields body = f.object("SpecialToken");
    piece.special = body.str("id");
    piece.type_id = body.u32("type_id");
  }
  return piece;
}

// special_tokens: {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, ...}.
std::vector<PostProcessor::Special> read_special_tokens(const JsonFields& f) {
  std::vector<PostProcessor::Special> out;
  for (const auto& [name, body] : f.object("special_tokens").entries()) {
    const JsonFields b = body.fields();
    PostProcessor::Special s;
    s.name = b.str("id");
    const JsonValue ids = b.value("ids"), tokens = b.value("tokens");
    if (ids.array().size() != tokens.array().size()) {
      tokens.fail("has " + std::to_string(tokens.array().size()) + " elements, " + ids.name() + " " +
                  std::to_string(ids.array().size()) + "; expected arrays of the same length");
    }
    for (size_t i = 0; i < ids.array().size(); ++i) {
      s.ids.push_back(json_token_id(ids.element(i)));
      s.tokens.push_back(tokens.element(i).str());
    }
    out.push_back(std::move(s));
  }
  return out;
}

PostProcessor template_processing(const JsonFields& f) {
  PostProcessor pp;
  for (const char* key : {"single", "pair"}) {
    const JsonValue list = f.value(key);
    auto& pieces = std::string(key) == "single" ? pp.single : pp.pair;
    for (size_t i = 0; i < list.array().size(); ++i) pieces.push_back(read_piece(list.element(i)));
  }
  for (const Piece& p : pp.single) {
    if (p.is_sequence && p.sequence != 0) f.fail("single", "uses $B, but a single sequence may only use $A");
  }
  pp.special_tokens = read_special_tokens(f);
  return pp;
}

// BertProcessing and RobertaProcessing: "cls": [token, id], "sep": [token, id].
PostProcessor cls_sep_processing(const JsonFields& f, bool roberta) {
  std::string names[2];
  uint32_t ids[2];
  for (int k = 0; k < 2; ++k) {
    const JsonValue pair = f.value(k == 0 ? "cls" : "sep");
    if (pair.array().size() != 2) {
      pair.fail("has " + std::to_string(pair.array().size()) + " elements, expected [token, id]");
    }
    names[k] = pair.element(0).str();
    ids[k] = json_token_id(pair.element(1));
  }
  PostProcessor pp = PostProcessor::cls_sep(names[0], ids[0], names[1], ids[1], roberta);
  // Written back in HF's field order (serde: the struct's declaration order).
  pp.json = ojson{{"type", roberta ? "RobertaProcessing" : "BertProcessing"},
                  {"sep", {names[1], pp.special_tokens[1].ids[0]}},
                  {"cls", {names[0], pp.special_tokens[0].ids[0]}}};
  if (roberta) {
    pp.json["trim_offsets"] = f.boolean_or("trim_offsets", true);
    pp.json["add_prefix_space"] = f.boolean_or("add_prefix_space", true);
  }
  return pp;
}

// A processor that adds no token (ByteLevel trims offsets only).
PostProcessor identity() {
  PostProcessor pp;
  pp.single = {Piece{true, 0, "", 0}};
  pp.pair = {Piece{true, 0, "", 0}, Piece{true, 1, "", 1}};
  return pp;
}

bool adds_tokens(const PostProcessor& pp) {
  return std::any_of(pp.pair.begin(), pp.pair.end(), [](const Piece& p) { return !p.is_sequence; });
}

PostProcessor read_any(const JsonValue& value);

// Sequence: the members in turn. Members that add no tokens change no ids, so the one that adds
// tokens (if any) decides; two that add tokens would nest templates, which bertpt does not model.
PostProcessor sequence(const JsonFields& f) {
  const JsonValue list = f.value("processors");
  PostProcessor result = identity();
  ojson members = ojson::array();
  bool found = false;
  for (size_t i = 0; i < list.array().size(); ++i) {
    PostProcessor member = read_any(list.element(i));
    members.push_back(member.to_json());
    if (!adds_tokens(member)) continue;
    if (found) {
      list.element(i).fail("is a second processor that adds special tokens",
                           "bertpt reads a Sequence with at most one token-adding processor");
    }
    result = std::move(member);
    found = true;
  }
  result.json = ojson{{"type", "Sequence"}, {"processors", std::move(members)}};
  return result;
}

PostProcessor read_any(const JsonValue& value) {
  const JsonFields f = value.fields();
  const JsonValue type = f.value("type");
  const std::string name = type.str();
  PostProcessor pp;
  if (name == "TemplateProcessing") {
    pp = template_processing(f);
  } else if (name == "BertProcessing" || name == "RobertaProcessing") {
    pp = cls_sep_processing(f, name == "RobertaProcessing");
  } else if (name == "ByteLevel") {
    pp = identity();
    pp.json = byte_level_json(f.boolean_or("add_prefix_space", true), f.boolean_or("trim_offsets", true),
                              f.boolean_or("use_regex", true));
  } else if (name == "Sequence") {
    pp = sequence(f);
  } else {
    type.fail("is '" + name + "', a post-processor bertpt does not know",
              "bertpt reads TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
  }
  for (const auto* pieces : {&pp.single, &pp.pair}) {
    for (const Piece& piece : *pieces) {
      if (!piece.is_sequence && !pp.find(piece.special)) {
        f.fail("special_tokens", "lacks '" + piece.special + "', which the template uses");
      }
    }
  }
  pp.type = name;
  return pp;
}

ojson piece_json(const Piece& p) {
  ojson body;
  body["id"] = p.is_sequence ? (p.sequence == 0 ? "A" : "B") : p.special;
  body["type_id"] = p.type_id;
  return ojson{{p.is_sequence ? "Sequence" : "SpecialToken", body}};
}

}  // namespace

const PostProcessor::Special* PostProcessor::find(const std::string& name) const {
  for (const Special& s : special_tokens) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

PostProcessor PostProcessor::from_json(const JsonValue& value) { return read_any(value); }

PostProcessor PostProcessor::cls_sep(const std::string& cls, uint32_t cls_id, const std::string& sep, uint32_t sep_id,
                                     bool roberta) {
  PostProcessor pp;
  pp.special_tokens = {{cls, {cls_id}, {cls}}, {sep, {sep_id}, {sep}}};
  const uint32_t b = roberta ? 0 : 1;
  pp.single = {Piece{false, 0, cls, 0}, Piece{true, 0, "", 0}, Piece{false, 0, sep, 0}};
  pp.pair = {Piece{false, 0, cls, 0}, Piece{true, 0, "", 0}, Piece{false, 0, sep, 0}};
  if (roberta) pp.pair.push_back(Piece{false, 0, sep, 0});
  pp.pair.insert(pp.pair.end(), {Piece{true, 1, "", b}, Piece{false, 0, sep, b}});
  pp.type_ids_zero = roberta;
  return pp;
}

PostProcessor PostProcessor::from_template(std::vector<Piece> single, std::vector<Piece> pair,
                                           std::vector<Special> special_tokens) {
  PostProcessor pp;
  pp.single = std::move(single);
  pp.pair = std::move(pair);
  pp.special_tokens = std::move(special_tokens);
  return pp;
}

ojson PostProcessor::to_json() const {
  if (!json.is_null()) return json;
  ojson post;
  post["type"] = "TemplateProcessing";
  post["single"] = ojson::array();
  for (const auto& piece : single) post["single"].push_back(piece_json(piece));
  post["pair"] = ojson::array();
  for (const auto& piece : pair) post["pair"].push_back(piece_json(piece));
  ojson specials = ojson::object();
  std::vector<const Special*> sorted;
  for (const auto& s : special_tokens) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(),  // HF keeps them in a sorted map
            [](const auto* a, const auto* b) { return a->name < b->name; });
  for (const auto* s : sorted) specials[s->name] = ojson{{"id", s->name}, {"ids", s->ids}, {"tokens", s->tokens}};
  post["special_tokens"] = specials;
  return post;
}

}  // namespace bertpt::tokenizer
