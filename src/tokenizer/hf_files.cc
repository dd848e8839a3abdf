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

// Field access with errors that say where: "tokenizer.json: model.vocab: expected an object".
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what, const std::string& hint = {}) const {
    throw BadInput(source_ + ": " + field + ": " + what, hint);
  }
  const json& member(const json& obj, const std::string& key, const std::string& field) const {
    if (!obj.is_object()) fail(field, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(field + "." + key, "missing");
    return *it;
  }
  std::string str(const json& v, const std::string& field) const {
    if (!v.is_string()) fail(field, "expected a string");
    return v.get<std::string>();
  }
  bool boolean(const json& v, const std::string& field) const {
    if (!v.is_boolean()) fail(field, "expected true or false");
    return v.get<bool>();
  }
  uint64_t uint(const json& v, const std::string& field) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
      fail(field, "expected a non-negative integer");
    }
    const uint64_t x = v.get<uint64_t>();
    if (x > 0xFFFFFFFEull) fail(field, "value too large");
    return x;
  }
  // Optional members default when absent (HF's serde defaults).
  bool opt_bool(const json& obj, const std::string& key, bool dflt, const std::string& field) const {
    auto it = obj.find(key);
    return it == obj.end() ? dflt : boolean(*it, field + "." + key);
  }
  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

std::string type_of(const Reader& r, const json& obj, const std::string& field) {
  return r.str(r.member(obj, "type", field), field + ".type");
}

std::optional<NormalizerOptions> read_normalizer(const Reader& r, const json& v) {
  if (v.is_null()) return std::nullopt;
  const std::string type = type_of(r, v, "normalizer");
  if (type != "BertNormalizer") {
    r.fail("normalizer.type", "'" + type + "' is not supported (bertpt reads BERT tokenizers)",
           "only BertNormalizer or null is supported");
  }
  NormalizerOptions o;
  o.clean_text = r.opt_bool(v, "clean_text", true, "normalizer");
  o.handle_chinese_chars = r.opt_bool(v, "handle_chinese_chars", true, "normalizer");
  o.lowercase = r.opt_bool(v, "lowercase", true, "normalizer");
  auto it = v.find("strip_accents");
  if (it != v.end() && !it->is_null()) o.strip_accents = r.boolean(*it, "normalizer.strip_accents");
  return o;
}

bool read_pre_tokenizer(const Reader& r, const json& v) {
  if (v.is_null()) return false;
  const std::string type = type_of(r, v, "pre_tokenizer");
  if (type != "BertPreTokenizer") {
    r.fail("pre_tokenizer.type", "'" + type + "' is not supported", "only BertPreTokenizer or null is supported");
  }
  return true;
}

[[noreturn]] void fail_piece(const Reader& r, const std::string& field) {
  r.fail(field, "expected {\"Sequence\": {...}} or {\"SpecialToken\": {...}}");
}

PostProcessor::Piece read_piece(const Reader& r, const json& item, const std::string& field) {
  if (!item.is_object() || item.size() != 1) fail_piece(r, field);
  PostProcessor::Piece piece;
  const std::string kind = item.begin().key();
  const json& body = item.begin().value();
  if (kind == "Sequence") {
    const std::string id = r.str(r.member(body, "id", field + ".Sequence"), field + ".Sequence.id");
    if (id != "A" && id != "B") r.fail(field + ".Sequence.id", "expected \"A\" or \"B\"");
    piece.is_sequence = true;
    piece.sequence = id == "A" ? 0 : 1;
    piece.type_id = static_cast<uint32_t>(
        r.uint(r.member(body, "type_id", field + ".Sequence"), field + ".Sequence.type_id"));
  } else if (kind == "SpecialToken") {
    piece.special = r.str(r.member(body, "id", field + ".SpecialToken"), field + ".SpecialToken.id");
    piece.type_id = static_cast<uint32_t>(
        r.uint(r.member(body, "type_id", field + ".SpecialToken"), field + ".SpecialToken.type_id"));
  } else {
    fail_piece(r, field);
  }
  return piece;
}

std::optional<PostProcessor> read_post_processor(const Reader& r, const json& v) {
  if (v.is_null()) return std::nullopt;
  const std::string type = type_of(r, v, "post_processor");
  PostProcessor pp;
  pp.type = type;
  using Piece = PostProcessor::Piece;
  if (type == "BertProcessing") {
    std::string names[2];
    for (int k = 0; k < 2; ++k) {
      const char* key = k == 0 ? "cls" : "sep";
      const json& pair = r.member(v, key, "post_processor");
      const std::string field = std::string("post_processor.") + key;
      if (!pair.is_array() || pair.size() != 2) r.fail(field, "expected [token, id]");
      names[k] = r.str(pair[0], field + "[0]");
      const auto id = static_cast<uint32_t>(r.uint(pair[1], field + "[1]"));
      pp.special_tokens.push_back({names[k], {id}, {names[k]}});
    }
    pp.single = {Piece{false, 0, names[0], 0}, Piece{true, 0, "", 0}, Piece{false, 0, names[1], 0}};
    pp.pair = {Piece{false, 0, names[0], 0}, Piece{true, 0, "", 0}, Piece{false, 0, names[1], 0}, Piece{true, 1, "", 1},
               Piece{false, 0, names[1], 1}};
    return pp;
  }
  if (type != "TemplateProcessing") {
    r.fail("post_processor.type", "'" + type + "' is not supported",
           "only TemplateProcessing, BertProcessing or null is supported");
  }
  for (const char* key : {"single", "pair"}) {
    const std::string field = std::string("post_processor.") + key;
    const json& list = r.member(v, key, "post_processor");
    if (!list.is_array()) r.fail(field, "expected an array");
    auto& pieces = std::string(key) == "single" ? pp.single : pp.pair;
    for (size_t i = 0; i < list.size(); ++i) {
      pieces.push_back(read_piece(r, list[i], field + "[" + std::to_string(i) + "]"));
    }
  }
  for (const Piece& p : pp.single) {
    if (p.is_sequence && p.sequence != 0) r.fail("post_processor.single", "may only use $A");
  }
  const json& specials = r.member(v, "special_tokens", "post_processor");
  if (!specials.is_object()) r.fail("post_processor.special_tokens", "expected an object");
  for (const auto& [name, body] : specials.items()) {
    const std::string field = "post_processor.special_tokens." + name;
    PostProcessor::Special s;
    s.name = r.str(r.member(body, "id", field), field + ".id");
    const json& ids = r.member(body, "ids", field);
    const json& tokens = r.member(body, "tokens", field);
    if (!ids.is_array() || !tokens.is_array() || ids.size() != tokens.size()) {
      r.fail(field, "expected arrays ids and tokens of the same length");
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      s.ids.push_back(static_cast<uint32_t>(r.uint(ids[i], field + ".ids")));
      s.tokens.push_back(r.str(tokens[i], field + ".tokens"));
    }
    pp.special_tokens.push_back(std::move(s));
  }
  return pp;
}

std::optional<WordPieceDecoderOptions> read_decoder(const Reader& r, const json& v) {
  if (v.is_null()) return std::nullopt;
  const std::string type = type_of(r, v, "decoder");
  if (type != "WordPiece") {
    r.fail("decoder.type", "'" + type + "' is not supported", "only the WordPiece decoder or null is supported");
  }
  WordPieceDecoderOptions d;
  auto it = v.find("prefix");
  if (it != v.end()) d.prefix = r.str(*it, "decoder.prefix");
  d.cleanup = r.opt_bool(v, "cleanup", true, "decoder");
  return d;
}

WordPiece read_model(const Reader& r, const json& v) {
  const std::string type = type_of(r, v, "model");
  if (type != "WordPiece") {
    r.fail("model.type", "'" + type + "' is not supported", "bertpt reads WordPiece models only");
  }
  WordPieceOptions o;
  if (auto it = v.find("unk_token"); it != v.end()) o.unk_token = r.str(*it, "model.unk_token");
  if (auto it = v.find("continuing_subword_prefix"); it != v.end()) {
    o.continuing_subword_prefix = r.str(*it, "model.continuing_subword_prefix");
  }
  if (auto it = v.find("max_input_chars_per_word"); it != v.end()) {
    o.max_input_chars_per_word = r.uint(*it, "model.max_input_chars_per_word");
  }
  const json& vocab = r.member(v, "vocab", "model");
  if (!vocab.is_object()) r.fail("model.vocab", "expected an object of token: id");
  std::vector<std::pair<std::string, uint32_t>> entries;
  entries.reserve(vocab.size());
  for (const auto& [token, id] : vocab.items()) {
    entries.emplace_back(token, static_cast<uint32_t>(r.uint(id, "model.vocab[\"" + token + "\"]")));
  }
  return WordPiece::from_map(std::move(entries), o, r.source() + ": model.vocab");
}

std::vector<AddedToken> read_added_tokens(const Reader& r, const json& v) {
  std::vector<AddedToken> out;
  if (v.is_null()) return out;
  if (!v.is_array()) r.fail("added_tokens", "expected an array");
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string field = "added_tokens[" + std::to_string(i) + "]";
    AddedToken t;
    t.id = static_cast<uint32_t>(r.uint(r.member(v[i], "id", field), field + ".id"));
    t.content = r.str(r.member(v[i], "content", field), field + ".content");
    t.single_word = r.opt_bool(v[i], "single_word", false, field);
    t.lstrip = r.opt_bool(v[i], "lstrip", false, field);
    t.rstrip = r.opt_bool(v[i], "rstrip", false, field);
    t.normalized = r.opt_bool(v[i], "normalized", false, field);
    t.special = r.opt_bool(v[i], "special", false, field);
    if (t.single_word || t.lstrip || t.rstrip) {
      r.fail(field, "'" + t.content + "' uses single_word/lstrip/rstrip, which bertpt does not support",
             "BERT tokenizers set them all to false");
    }
    out.push_back(std::move(t));
  }
  return out;
}

// ---- special-token roles from the files transformers writes ------------------------------------

std::optional<std::string> role_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object()) {
    auto it = v.find("content");
    if (it != v.end() && it->is_string()) return it->get<std::string>();
  }
  return std::nullopt;
}

// Reads role names from special_tokens_map.json (or tokenizer_config.json) in `dir`, if present.
void read_roles(const std::string& dir, BertSpecialTokens& roles) {
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    const std::string path = dir + "/" + name;
    if (!fs::exists(path)) continue;
    json j = json::parse(read_file(path), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw BadInput(path + ": not a JSON object");
    const std::pair<const char*, std::string*> keys[] = {{"pad_token", &roles.pad},
                                                         {"unk_token", &roles.unk},
                                                         {"cls_token", &roles.cls},
                                                         {"sep_token", &roles.sep},
                                                         {"mask_token", &roles.mask}};
    for (const auto& [key, dest] : keys) {
      auto it = j.find(key);
      if (it == j.end() || it->is_null()) continue;
      const std::optional<std::string> s = role_string(*it);
      if (!s) {
        throw BadInput(path + ": field \"" + key + "\" is " + json_type_in_words(*it) +
                       ", expected a string or an object with a string \"content\"");
      }
      *dest = *s;
    }
  }
}

// A true/false setting of tokenizer_config.json; absent or null: unset.
std::optional<bool> config_bool(const json& config, const char* key, const std::string& path) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) {
    throw BadInput(path + ": field \"" + key + "\" is " + json_type_in_words(*it) + ", expected true or false");
  }
  return it->get<bool>();
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
  const Reader r(source);
  if (!j.is_object()) r.fail("(top level)", "expected a JSON object");
  Tokenizer::Parts parts;
  auto get = [&](const char* key) -> const json& {
    static const json null_value;
    auto it = j.find(key);
    return it == j.end() ? null_value : *it;
  };
  parts.model = read_model(r, r.member(j, "model", "(top level)"));
  parts.normalizer = read_normalizer(r, get("normalizer"));
  parts.bert_pre_tokenizer = read_pre_tokenizer(r, get("pre_tokenizer"));
  parts.post_processor = read_post_processor(r, get("post_processor"));
  parts.decoder = read_decoder(r, get("decoder"));
  parts.added_tokens = read_added_tokens(r, get("added_tokens"));
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
  const nlohmann::json j = nlohmann::json::parse(read_file(file.string()), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw BadInput(file.string() + ": not a JSON object", "restore it from the model's source");
  const auto it = j.find("clean_up_tokenization_spaces");
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) {
    throw BadInput(file.string() + ": field 'clean_up_tokenization_spaces' must be true or false");
  }
  return it->get<bool>();
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
    json c = json::parse(read_file(config_path), nullptr, false);
    if (c.is_discarded() || !c.is_object()) throw BadInput(config_path + ": not a JSON object");
    if (auto v = config_bool(c, "do_lower_case", config_path)) norm.lowercase = *v;
    if (auto v = config_bool(c, "strip_accents", config_path)) norm.strip_accents = *v;
    if (auto v = config_bool(c, "tokenize_chinese_chars", config_path)) norm.handle_chinese_chars = *v;
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
