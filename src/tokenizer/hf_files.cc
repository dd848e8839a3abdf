#include "tokenizer/hf_files.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "text/utf8.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

// ---- reading tokenizer.json -------------------------------------------------------------------

// Fields are read through common/json_fields.h, so an error names the file and the field:
// `tokenizer.json: field "model.vocab" is missing`.

[[noreturn]] void unsupported(const JsonValue& type, const std::string& hint, const std::string& note = {}) {
  type.fail("is '" + type.str() + "', which is not supported" + note, hint);
}

// A token id: an unsigned integer below 2^32 - 1.
uint32_t token_id(const JsonValue& v) {
  const uint64_t id = v.u64();
  if (id > 0xFFFFFFFEull) v.fail("is " + std::to_string(id) + ", out of range");
  return uint32_t(id);
}

std::optional<NormalizerOptions> read_normalizer(const JsonFields& root) {
  const std::optional<JsonValue> v = root.optional("normalizer");
  if (!v) return std::nullopt;
  const JsonFields f = v->fields();
  if (f.str("type") != "BertNormalizer") {
    unsupported(f.value("type"), "only BertNormalizer or null is supported", " (bertpt reads BERT tokenizers)");
  }
  NormalizerOptions o;
  o.clean_text = f.boolean_or("clean_text", true);
  o.handle_chinese_chars = f.boolean_or("handle_chinese_chars", true);
  o.lowercase = f.boolean_or("lowercase", true);
  if (const std::optional<JsonValue> strip = f.optional("strip_accents")) o.strip_accents = strip->boolean();
  return o;
}

bool read_pre_tokenizer(const JsonFields& root) {
  const std::optional<JsonValue> v = root.optional("pre_tokenizer");
  if (!v) return false;
  const JsonFields f = v->fields();
  if (f.str("type") != "BertPreTokenizer") unsupported(f.value("type"), "only BertPreTokenizer or null is supported");
  return true;
}

// One piece of a template: {"Sequence": {"id": "A", "type_id": 0}} or {"SpecialToken": {...}}.
PostProcessor::Piece read_piece(const JsonValue& item) {
  const nlohmann::json& j = item.json();
  if (!j.is_object() || j.size() != 1 || (!j.contains("Sequence") && !j.contains("SpecialToken"))) {
    item.fail("is " + j.dump() + ", expected {\"Sequence\": {...}} or {\"SpecialToken\": {...}}");
  }
  PostProcessor::Piece piece;
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

// BertProcessing: "cls": [token, id], "sep": [token, id].
PostProcessor bert_processing(const JsonFields& f) {
  using Piece = PostProcessor::Piece;
  PostProcessor pp;
  pp.type = "BertProcessing";
  std::string names[2];
  for (int k = 0; k < 2; ++k) {
    const JsonValue pair = f.value(k == 0 ? "cls" : "sep");
    if (pair.array().size() != 2)
      pair.fail("has " + std::to_string(pair.array().size()) + " elements, expected [token, id]");
    names[k] = pair.element(0).str();
    pp.special_tokens.push_back({names[k], {token_id(pair.element(1))}, {names[k]}});
  }
  pp.single = {Piece{false, 0, names[0], 0}, Piece{true, 0, "", 0}, Piece{false, 0, names[1], 0}};
  pp.pair = {Piece{false, 0, names[0], 0}, Piece{true, 0, "", 0}, Piece{false, 0, names[1], 0}, Piece{true, 1, "", 1},
             Piece{false, 0, names[1], 1}};
  return pp;
}

// post_processor.special_tokens: {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, ...}.
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
      s.ids.push_back(token_id(ids.element(i)));
      s.tokens.push_back(tokens.element(i).str());
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<PostProcessor> read_post_processor(const JsonFields& root) {
  const std::optional<JsonValue> v = root.optional("post_processor");
  if (!v) return std::nullopt;
  const JsonFields f = v->fields();
  const std::string type = f.str("type");
  if (type == "BertProcessing") return bert_processing(f);
  if (type != "TemplateProcessing") {
    unsupported(f.value("type"), "only TemplateProcessing, BertProcessing or null is supported");
  }
  PostProcessor pp;
  pp.type = type;
  for (const char* key : {"single", "pair"}) {
    const JsonValue list = f.value(key);
    auto& pieces = std::string(key) == "single" ? pp.single : pp.pair;
    for (size_t i = 0; i < list.array().size(); ++i) pieces.push_back(read_piece(list.element(i)));
  }
  for (const PostProcessor::Piece& p : pp.single) {
    if (p.is_sequence && p.sequence != 0) f.fail("single", "uses $B, but a single sequence may only use $A");
  }
  pp.special_tokens = read_special_tokens(f);
  return pp;
}

std::optional<WordPieceDecoderOptions> read_decoder(const JsonFields& root) {
  const std::optional<JsonValue> v = root.optional("decoder");
  if (!v) return std::nullopt;
  const JsonFields f = v->fields();
  if (f.str("type") != "WordPiece") unsupported(f.value("type"), "only the WordPiece decoder or null is supported");
  WordPieceDecoderOptions d;
  d.prefix = f.str_or("prefix", d.prefix);
  d.cleanup = f.boolean_or("cleanup", true);
  return d;
}

WordPiece read_model(const JsonFields& root) {
  const JsonFields f = root.object("model");
  if (f.str("type") != "WordPiece") unsupported(f.value("type"), "bertpt reads WordPiece models only");
  WordPieceOptions o;
  o.unk_token = f.str_or("unk_token", o.unk_token);
  o.continuing_subword_prefix = f.str_or("continuing_subword_prefix", o.continuing_subword_prefix);
  if (const std::optional<JsonValue> v = f.optional("max_input_chars_per_word")) o.max_input_chars_per_word = v->u32();
  const std::vector<std::pair<std::string, JsonValue>> vocab = f.object("vocab").entries();
  std::vector<std::pair<std::string, uint32_t>> entries;
  entries.reserve(vocab.size());
  for (const auto& [token, id] : vocab) entries.emplace_back(token, token_id(id));
  return WordPiece::from_map(std::move(entries), o, f.file() + ": model.vocab");
}

AddedToken read_added_token(const JsonValue& item) {
  const JsonFields f = item.fields();
  AddedToken t;
  t.id = token_id(f.value("id"));
  t.content = f.str("content");
  t.single_word = f.boolean_or("single_word", false);
  t.lstrip = f.boolean_or("lstrip", false);
  t.rstrip = f.boolean_or("rstrip", false);
  t.normalized = f.boolean_or("normalized", false);
  t.special = f.boolean_or("special", false);
  if (t.single_word || t.lstrip || t.rstrip) {
    item.fail("('" + t.content + "') uses single_word/lstrip/rstrip, which bertpt does not support",
              "BERT tokenizers set them all to false");
  }
  return t;
}

std::vector<AddedToken> read_added_tokens(const JsonFields& root) {
  std::vector<AddedToken> out;
  const std::optional<JsonValue> v = root.optional("added_tokens");
  if (!v) return out;
  for (size_t i = 0; i < v->array().size(); ++i) out.push_back(read_added_token(v->element(i)));
  return out;
}

// ---- special-token roles from the files transformers writes ------------------------------------

// A role's token: "[PAD]", or {"content": "[PAD]", ...} (an AddedToken, as transformers 4.x writes).
std::string role_string(const JsonValue& v) {
  if (v.json().is_string()) return v.str();
  if (!v.json().is_object() || !v.json().contains("content") || !v.json()["content"].is_string()) {
    v.fail("is " + json_type_in_words(v.json()) + ", expected a string or an object with a string \"content\"");
  }
  return v.fields().str("content");
}

// Reads role names from special_tokens_map.json (or tokenizer_config.json) in `dir`, if present.
void read_roles(const std::string& dir, BertSpecialTokens& roles) {
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    const std::string path = dir + "/" + name;
    if (!fs::exists(path)) continue;
    const json j = read_json_file(path);
    const JsonFields f(j, path);
    const std::pair<const char*, std::string*> keys[] = {{"pad_token", &roles.pad},
                                                         {"unk_token", &roles.unk},
                                                         {"cls_token", &roles.cls},
                                                         {"sep_token", &roles.sep},
                                                         {"mask_token", &roles.mask}};
    for (const auto& [key, dest] : keys) {
      if (const std::optional<JsonValue> v = f.optional(key)) *dest = role_string(*v);
    }
  }
}

// A true/false setting of tokenizer_config.json; absent or null: unset.
std::optional<bool> config_bool(const JsonFields& config, const char* key) {
  const std::optional<JsonValue> v = config.optional(key);
  return v ? std::optional<bool>(v->boolean()) : std::nullopt;
}

bool is_ws_tail(std::string_view s, size_t& cut) {
  // Finds the start of trailing whitespace (Rust str::trim_end: White_Space).
  cut = s.size();
  while (cut > 0) {
    size_t start = cut - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    size_t len;
    const uint32_t cp = unicode::decode_utf8(reinterpret_cast<const unsigned char*>(s.data()) + start, cut - start,
                                             len);
    if (!(unicode::lookup(cp) & unicode::kSpace) || cp == 0xFFFD) break;
    cut = start;
  }
  return cut != s.size();
}

// A token as vocab.txt holds it: readers drop a line's trailing whitespace (read_vocab_txt).
std::string_view trimmed(std::string_view token) {
  size_t cut;
  is_ws_tail(token, cut);
  return token.substr(0, cut);
}

std::string shown(std::string_view token) {
  std::string s = nlohmann::json(std::string(token)).dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// A vocab.txt beside the tokenizer.json that was loaded must list the same vocabulary — the model's
// tokens in the order of their ids, as Hugging Face writes it — or the directory mixes two tokenizers
// (a write that was interrupted, a file copied over another) and tools that read vocab.txt (the slow
// BertTokenizer, a bare-vocab load) would encode differently.
void check_vocab_txt_agrees(const Tokenizer& t, const std::string& vocab_path, const std::string& json_path) {
  const std::string data = read_file(vocab_path);
  const WordPiece& model = t.parts().model;
  const std::string what = vocab_path + " disagrees with " + json_path + ": ";
  const char* hint =
      "the directory mixes two tokenizers (an interrupted write?): write it again, or delete vocab.txt to use "
      "tokenizer.json alone";
  size_t pos = 0, line = 0;
  uint32_t id = 0;
  for (;; ++id) {
    while (id < model.id_limit() && !model.has_id(id)) ++id;
    // The next line; a final newline ends the last one.
    if (pos >= data.size()) break;
    size_t end = data.find('\n', pos);
    if (end == std::string::npos) end = data.size();
    const std::string_view token = trimmed(std::string_view(data).substr(pos, end - pos));
    pos = end + 1;
    ++line;
    if (id >= model.id_limit()) {
      if (token.empty() && data.find_first_not_of(" \t\r\n", pos) == std::string::npos) break;  // blank tail
      throw BadInput(what + "line " + std::to_string(line) + " is " + shown(token) + " but tokenizer.json has only " +
                         std::to_string(line - 1) + " tokens",
                     hint);
    }
    const std::string_view expected = trimmed(model.id_to_token(id));
    if (token != expected) {
      throw BadInput(what + "line " + std::to_string(line) + " is " + shown(token) + " but token " +
                         std::to_string(id) + " of tokenizer.json is " + shown(expected),
                     hint);
    }
  }
  if (id < model.id_limit()) {
    throw BadInput(what + "vocab.txt ends after " + std::to_string(line) + " tokens, tokenizer.json has more", hint);
  }
}

// ---- writing ------------------------------------------------------------------------------------

ojson added_token_json(const AddedToken& t, bool with_id) {
  ojson j;
  if (with_id) j["id"] = t.id;
  j["content"] = t.content;
  j["single_word"] = t.single_word;
  j["lstrip"] = t.lstrip;
  j["rstrip"] = t.rstrip;
  j["normalized"] = t.normalized;
  j["special"] = t.special;
  return j;
}

ojson piece_json(const PostProcessor::Piece& p) {
  ojson body;
  if (p.is_sequence) {
    body["id"] = p.sequence == 0 ? "A" : "B";
    body["type_id"] = p.type_id;
    return ojson{{"Sequence", body}};
  }
  body["id"] = p.special;
  body["type_id"] = p.type_id;
  return ojson{{"SpecialToken", body}};
}

std::string dump(const ojson& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::strict); }

std::vector<std::string_view> model_tokens_in_id_order(const Tokenizer& t) {
  const WordPiece& m = t.parts().model;
  std::vector<std::string_view> tokens;
  tokens.reserve(m.id_limit());
  for (uint32_t id = 0; id < m.id_limit(); ++id) {
    if (!m.has_id(id)) {
      throw BadInput("cannot write vocab.txt: the vocabulary has no token with id " + std::to_string(id) +
                     " (ids must be 0..N-1)");
    }
    tokens.push_back(m.id_to_token(id));
  }
  return tokens;
}

}  // namespace

std::vector<std::string> read_vocab_txt(const std::string& path) {
  const std::string data = read_file(path);
  std::vector<std::string> tokens;
  size_t line_no = 0, pos = 0, blank_line = 0;
  while (pos < data.size()) {
    size_t end = data.find('\n', pos);
    if (end == std::string::npos) end = data.size();
    std::string_view line(data.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!text::is_clean_utf8(line)) {
      throw BadInput(at(path, line_no) + ": not valid UTF-8 (or contains NUL)",
                     "vocab.txt must be UTF-8 text, one token per line");
    }
    size_t cut;
    is_ws_tail(line, cut);
    line = line.substr(0, cut);
    if (line.empty()) {
      if (!blank_line) blank_line = line_no;
      continue;
    }
    if (blank_line) {
      throw BadInput(at(path, blank_line) + ": empty token",
                     "vocab.txt has one token per line; an empty line would shift every later id");
    }
    tokens.emplace_back(line);
  }
  if (tokens.empty()) throw BadInput(path + ": empty vocabulary");
  return tokens;
}

Tokenizer parse_tokenizer_json(std::string_view json_text, const std::string& source) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {  // a syntax error, or a number too large for its type (out_of_range)
    throw BadInput(source + ": not valid JSON (" + e.what() + ")");
  }
  const JsonFields root(j, source);
  Tokenizer::Parts parts;
  parts.model = read_model(root);
  parts.normalizer = read_normalizer(root);
  parts.bert_pre_tokenizer = read_pre_tokenizer(root);
  parts.post_processor = read_post_processor(root);
  parts.decoder = read_decoder(root);
  parts.added_tokens = read_added_tokens(root);
  parts.roles.unk = parts.model.options().unk_token;
  try {
    return Tokenizer(std::move(parts));
  } catch (const BadInput& e) {
    throw BadInput(source + ": " + e.what(), e.hint());
  }
}

bool has_tokenizer_files(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(dir) / "tokenizer.json", ec) ||
         std::filesystem::exists(std::filesystem::path(dir) / "vocab.txt", ec);
}

bool clean_up_tokenization_spaces(const std::string& dir) {
  const fs::path file = fs::path(dir) / "tokenizer_config.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return true;
  const nlohmann::json j = read_json_file(file.string(), "restore it from the model's source");
  return JsonFields(j, file.string(), "", "restore it from the model's source")
      .boolean_or("clean_up_tokenization_spaces", true);
}

Tokenizer load_tokenizer(const std::string& path, const VocabTxtOptions& vocab_options) {
  std::error_code ec;
  const bool is_dir = fs::is_directory(path, ec);
  if (!is_dir && !fs::exists(path, ec)) {
    throw BadInput(path + ": no such file or directory",
                   "--tokenizer takes a directory with tokenizer.json or vocab.txt");
  }
  const std::string dir = is_dir ? path : fs::path(path).parent_path().string();
  const std::string dir_or_dot = dir.empty() ? "." : dir;
  std::string json_path, vocab_path;
  if (is_dir) {
    if (fs::exists(path + "/tokenizer.json")) {
      json_path = path + "/tokenizer.json";
    } else if (fs::exists(path + "/vocab.txt")) {
      vocab_path = path + "/vocab.txt";
    } else {
      throw BadInput(path + ": has neither tokenizer.json nor vocab.txt",
                     "train one with `bertpt tokenizer train` or point at a Hugging Face BERT "
                     "tokenizer directory");
    }
  } else if (fs::path(path).extension() == ".json") {
    json_path = path;
  } else {
    vocab_path = path;
  }

  BertSpecialTokens roles;
  if (!json_path.empty()) {
    Tokenizer t = parse_tokenizer_json(read_file(json_path), json_path);
    if (const std::string beside = dir_or_dot + "/vocab.txt"; fs::exists(beside, ec)) {
      check_vocab_txt_agrees(t, beside, json_path);
    }
    // Role names from the transformers files beside it, when present.
    Tokenizer::Parts parts = t.parts();
    roles.unk = parts.model.options().unk_token;
    read_roles(dir_or_dot, roles);
    roles.unk = parts.model.options().unk_token;  // the model's own setting wins
    parts.roles = roles;
    return Tokenizer(std::move(parts));
  }

  // A bare vocab.txt: BertTokenizer's settings, from tokenizer_config.json when present.
  NormalizerOptions norm;
  const std::string config_path = dir_or_dot + "/tokenizer_config.json";
  if (fs::exists(config_path)) {
    const json j = read_json_file(config_path);
    const JsonFields c(j, config_path);
    if (auto v = config_bool(c, "do_lower_case")) norm.lowercase = *v;
    if (auto v = config_bool(c, "strip_accents")) norm.strip_accents = *v;
    if (auto v = config_bool(c, "tokenize_chinese_chars")) norm.handle_chinese_chars = *v;
    read_roles(dir_or_dot, roles);
  } else if (fs::exists(dir_or_dot + "/special_tokens_map.json")) {
    read_roles(dir_or_dot, roles);
  }
  if (vocab_options.lowercase) norm.lowercase = *vocab_options.lowercase;
  if (vocab_options.strip_accents) norm.strip_accents = *vocab_options.strip_accents;
  if (vocab_options.handle_chinese_chars) {
    norm.handle_chinese_chars = *vocab_options.handle_chinese_chars;
  }
  std::vector<std::string> vocab = read_vocab_txt(vocab_path);
  // The special tokens that exist in this vocabulary become added tokens, as transformers does.
  std::vector<std::string> specials;
  for (const std::string* s : {&roles.pad, &roles.unk, &roles.cls, &roles.sep, &roles.mask}) {
    if (s->empty()) continue;
    bool present = false;
    for (const std::string& v : vocab) present = present || v == *s;
    if (present) specials.push_back(*s);
  }
  return Tokenizer::bert(std::move(vocab), norm, specials, roles, vocab_path);
}

std::string tokenizer_json(const Tokenizer& tokenizer) {
  const Tokenizer::Parts& p = tokenizer.parts();
  ojson j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  std::vector<const AddedToken*> added;
  for (const AddedToken& t : p.added_tokens) added.push_back(&t);
  std::stable_sort(added.begin(), added.end(), [](const AddedToken* a, const AddedToken* b) { return a->id < b->id; });
  j["added_tokens"] = ojson::array();
  for (const AddedToken* t : added) j["added_tokens"].push_back(added_token_json(*t, true));
  if (p.normalizer) {
    ojson n;
    n["type"] = "BertNormalizer";
    n["clean_text"] = p.normalizer->clean_text;
    n["handle_chinese_chars"] = p.normalizer->handle_chinese_chars;
    n["strip_accents"] = p.normalizer->strip_accents ? ojson(*p.normalizer->strip_accents) : ojson();
    n["lowercase"] = p.normalizer->lowercase;
    j["normalizer"] = n;
  } else {
    j["normalizer"] = nullptr;
  }
  j["pre_tokenizer"] = p.bert_pre_tokenizer ? ojson{{"type", "BertPreTokenizer"}} : ojson();
  if (p.post_processor) {
    const PostProcessor& pp = *p.post_processor;
    ojson post;
    post["type"] = pp.type;
    if (pp.type == "BertProcessing") {
      const PostProcessor::Special* cls = pp.find(pp.single.front().special);
      const PostProcessor::Special* sep = pp.find(pp.single.back().special);
      post["sep"] = ojson::array({sep->name, sep->ids.at(0)});
      post["cls"] = ojson::array({cls->name, cls->ids.at(0)});
    } else {
      post["single"] = ojson::array();
      for (const auto& piece : pp.single) post["single"].push_back(piece_json(piece));
      post["pair"] = ojson::array();
      for (const auto& piece : pp.pair) post["pair"].push_back(piece_json(piece));
      ojson specials = ojson::object();
      std::vector<const PostProcessor::Special*> sorted;
      for (const auto& s : pp.special_tokens) sorted.push_back(&s);
      std::sort(sorted.begin(), sorted.end(),  // HF keeps them in a sorted map
                [](const auto* a, const auto* b) { return a->name < b->name; });
      for (const auto* s : sorted) {
        specials[s->name] = ojson{{"id", s->name}, {"ids", s->ids}, {"tokens", s->tokens}};
      }
      post["special_tokens"] = specials;
    }
    j["post_processor"] = post;
  } else {
    j["post_processor"] = nullptr;
  }
  if (p.decoder) {
    j["decoder"] = ojson{{"type", "WordPiece"}, {"prefix", p.decoder->prefix}, {"cleanup", p.decoder->cleanup}};
  } else {
    j["decoder"] = nullptr;
  }
  ojson model;
  model["type"] = "WordPiece";
  model["unk_token"] = p.model.options().unk_token;
  model["continuing_subword_prefix"] = p.model.options().continuing_subword_prefix;
  model["max_input_chars_per_word"] = p.model.options().max_input_chars_per_word;
  // Tokens of a vocabulary are unique, so they are appended directly: ordered_json's operator[]
  // searches linearly, which made saving a 30k vocabulary take about a second.
  ojson vocab = ojson::object();
  auto& entries = static_cast<std::vector<std::pair<const std::string, ojson>>&>(vocab.get_ref<ojson::object_t&>());
  entries.reserve(p.model.id_limit());
  for (uint32_t id = 0; id < p.model.id_limit(); ++id) {
    if (p.model.has_id(id)) entries.emplace_back(std::string(p.model.id_to_token(id)), id);
  }
  model["vocab"] = std::move(vocab);
  j["model"] = std::move(model);
  return dump(j) + "\n";
}

std::string vocab_txt(const Tokenizer& tokenizer) {
  std::string out;
  for (std::string_view t : model_tokens_in_id_order(tokenizer)) {
    out.append(t);
    out.push_back('\n');
  }
  return out;
}

std::string special_tokens_map_json(const Tokenizer& tokenizer) {
  const BertSpecialTokens& r = tokenizer.parts().roles;
  ojson j = ojson::object();
  const std::pair<const char*, const std::string*> keys[] = {{"cls_token", &r.cls},
                                                             {"mask_token", &r.mask},
                                                             {"pad_token", &r.pad},
                                                             {"sep_token", &r.sep},
                                                             {"unk_token", &r.unk}};
  for (const auto& [key, value] : keys) {
    if (!value->empty() && tokenizer.token_to_id(*value)) j[key] = *value;
  }
  return dump(j) + "\n";
}

std::string tokenizer_config_json(const Tokenizer& tokenizer, size_t model_max_length) {
  const Tokenizer::Parts& p = tokenizer.parts();
  const NormalizerOptions norm = p.normalizer.value_or(
      NormalizerOptions{false, false, std::optional<bool>(false), false});
  ojson j;
  ojson decoder = ojson::object();
  std::vector<const AddedToken*> added;
  for (const AddedToken& t : p.added_tokens) added.push_back(&t);
  std::stable_sort(added.begin(), added.end(), [](const AddedToken* a, const AddedToken* b) { return a->id < b->id; });
  for (const AddedToken* t : added) decoder[std::to_string(t->id)] = added_token_json(*t, false);
  j["added_tokens_decoder"] = decoder;
  j["clean_up_tokenization_spaces"] = p.decoder ? p.decoder->cleanup : false;
  const BertSpecialTokens& r = p.roles;
  auto role = [&](const char* key, const std::string& value) {
    if (!value.empty() && tokenizer.token_to_id(value)) j[key] = value;
  };
  role("cls_token", r.cls);
  j["do_basic_tokenize"] = true;
  j["do_lower_case"] = norm.lowercase;
  role("mask_token", r.mask);
  j["model_max_length"] = model_max_length;
  j["never_split"] = nullptr;
  role("pad_token", r.pad);
  role("sep_token", r.sep);
  j["strip_accents"] = norm.strip_accents ? ojson(*norm.strip_accents) : ojson();
  j["tokenize_chinese_chars"] = norm.handle_chinese_chars;
  j["tokenizer_class"] = "BertTokenizer";
  role("unk_token", r.unk);
  return dump(j) + "\n";
}

void save_tokenizer(const Tokenizer& tokenizer, const std::string& dir, size_t model_max_length,
                    const std::function<void(const std::string& tmp_dir)>& extra_files) {
  // Render everything first, so a failure leaves no partial set behind.
  const std::string vocab = vocab_txt(tokenizer);
  const std::string config = tokenizer_config_json(tokenizer, model_max_length);
  const std::string specials = special_tokens_map_json(tokenizer);
  const std::string json_text = tokenizer_json(tokenizer);
  const std::vector<std::string> owned = {"vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
                                          "tokenizer.json"};
  write_directory_set(
      dir, owned,
      [&](const std::string& into) {
        write_file_atomic(into + "/vocab.txt", vocab);
        write_file_atomic(into + "/tokenizer_config.json", config);
        write_file_atomic(into + "/special_tokens_map.json", specials);
        write_file_atomic(into + "/tokenizer.json", json_text);
        if (extra_files) extra_files(into);
      },
      "check free disk space and that the directory is writable");
}

void save_bert_tokenizer(const std::string& dir, const std::vector<std::string>& vocab_in_id_order,
                         const NormalizerOptions& normalizer, const std::vector<std::string>& special_tokens,
                         const BertSpecialTokens& roles, size_t model_max_length) {
  const Tokenizer t = Tokenizer::bert(vocab_in_id_order, normalizer, special_tokens, roles, dir + "/vocab.txt");
  save_tokenizer(t, dir, model_max_length);
}

}  // namespace bertpt::tokenizer
