#include "tokenizer/hf_files.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "text/utf8.h"
#include "tokenizer/decoders/wordpiece.h"
#include "tokenizer/unicode_tables.h"

namespace bertpt::tokenizer {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

// ---- reading tokenizer.json -------------------------------------------------------------------

// Fields are read through common/json_fields.h, so an error names the file and the field:
// `tokenizer.json: field "model.vocab" is missing`.

// The component under `key`, or null when absent or JSON null.
template <class Ptr, class Read>
Ptr optional_component(const JsonFields& root, const char* key, Read&& read) {
  const std::optional<JsonValue> v = root.optional(key);
  return v ? read(*v) : Ptr();
}

AddedToken read_added_token(const JsonValue& item) {
  const JsonFields f = item.fields();
  AddedToken t;
  t.id = json_token_id(f.value("id"));
  t.content = f.str("content");
  t.single_word = f.boolean_or("single_word", false);
  t.lstrip = f.boolean_or("lstrip", false);
  t.rstrip = f.boolean_or("rstrip", false);
  t.normalized = f.boolean_or("normalized", false);
  t.special = f.boolean_or("special", false);
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
    const std::pair<const char*, std::string*> keys[] = {
        {"pad_token", &roles.pad},   {"unk_token", &roles.unk}, {"cls_token", &roles.cls}, {"sep_token", &roles.sep},
        {"mask_token", &roles.mask}, {"bos_token", &roles.bos}, {"eos_token", &roles.eos}};
    for (const auto& [key, dest] : keys) {
      if (const std::optional<JsonValue> v = f.optional(key)) *dest = role_string(*v);
    }
  }
}

// Roles that neither special_tokens_map.json nor tokenizer_config.json named (a tokenizer.json saved
// by `tokenizers` alone): cls and sep are the first and last special tokens of the single-sequence
// template; pad, mask and unk the special added tokens with the names the hub's models use.
void infer_missing_roles(const Tokenizer& t, BertSpecialTokens& roles) {
  const Tokenizer::Parts& p = t.parts();
  if (p.post_processor) {
    std::vector<std::string> specials;
    for (const PostProcessor::Piece& piece : p.post_processor->single) {
      const PostProcessor::Special* s = piece.is_sequence ? nullptr : p.post_processor->find(piece.special);
      if (s && s->tokens.size() == 1) specials.push_back(s->tokens[0]);
    }
    if (roles.cls.empty() && specials.size() >= 2) roles.cls = specials.front();
    if (roles.sep.empty() && !specials.empty()) roles.sep = specials.back();
  }
  const BertSpecialTokens named = roles_by_name([&](const std::string& name) {
    return std::any_of(p.added_tokens.begin(), p.added_tokens.end(),
                       [&](const AddedToken& a) { return a.special && a.content == name; });
  });
  for (auto role : {&BertSpecialTokens::pad, &BertSpecialTokens::mask, &BertSpecialTokens::unk}) {
    if ((roles.*role).empty()) roles.*role = named.*role;
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
  const Model& model = t.model();
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

std::string dump(const ojson& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::strict); }

std::vector<std::string_view> model_tokens_in_id_order(const Tokenizer& t) {
  const Model& m = t.model();
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
  parts.model = read_model(root.value("model"));
  parts.normalizer = optional_component<NormalizerPtr>(root, "normalizer", read_normalizer);
  parts.pre_tokenizer = optional_component<PreTokenizerPtr>(root, "pre_tokenizer", read_pre_tokenizer);
  if (const std::optional<JsonValue> v = root.optional("post_processor")) {
    parts.post_processor = PostProcessor::from_json(*v);
  }
  parts.decoder = optional_component<DecoderPtr>(root, "decoder", read_decoder);
  parts.added_tokens = read_added_tokens(root);
  parts.roles.unk = parts.model->unk_token();
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

bool clean_up_tokenization_spaces(const std::string& dir, std::string_view model_type) {
  const fs::path file = fs::path(dir) / "tokenizer_config.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return false;
  const nlohmann::json j = read_json_file(file.string(), "restore it from the model's source");
  const JsonFields config(j, file.string(), "", "restore it from the model's source");
  const bool clean_up = config.boolean_or("clean_up_tokenization_spaces", false);
  if (model_type != "BPE") return clean_up;
  return clean_up &&
         config.boolean_or("clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output", false);
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
    if (t.model_type() != "WordPiece") roles = BertSpecialTokens{"", "", "", "", "", "", ""};
    roles.unk = parts.model->unk_token();
    read_roles(dir_or_dot, roles);
    if (!parts.model->unk_token().empty()) roles.unk = parts.model->unk_token();  // the model's own setting wins
    if (t.model_type() != "WordPiece") infer_missing_roles(t, roles);
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
  j["normalizer"] = p.normalizer ? p.normalizer->to_json() : ojson();
  j["pre_tokenizer"] = p.pre_tokenizer ? p.pre_tokenizer->to_json() : ojson();
  j["post_processor"] = p.post_processor ? p.post_processor->to_json() : ojson();
  j["decoder"] = p.decoder ? p.decoder->to_json() : ojson();
  j["model"] = p.model->to_json();
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
  const std::pair<const char*, const std::string*> keys[] = {
      {"bos_token", &r.bos}, {"cls_token", &r.cls}, {"eos_token", &r.eos}, {"mask_token", &r.mask},
      {"pad_token", &r.pad}, {"sep_token", &r.sep}, {"unk_token", &r.unk}};
  for (const auto& [key, value] : keys) {
    if (!value->empty() && tokenizer.token_to_id(*value)) j[key] = *value;
  }
  return dump(j) + "\n";
}

std::string tokenizer_config_json(const Tokenizer& tokenizer, size_t model_max_length) {
  const Tokenizer::Parts& p = tokenizer.parts();
  // A BERT tokenizer (WordPiece) is described for BertTokenizer, with its normalizer's settings;
  // any other for PreTrainedTokenizerFast, which reads tokenizer.json itself.
  const bool bert = tokenizer.model_type() == "WordPiece";
  const auto* bert_normalizer = dynamic_cast<const BertNormalizer*>(p.normalizer.get());
  const NormalizerOptions norm = bert_normalizer ? bert_normalizer->options()
                                                 : NormalizerOptions{false, false, std::optional<bool>(false), false};
  const auto* wordpiece_decoder = dynamic_cast<const WordPieceDecoder*>(p.decoder.get());
  ojson j;
  ojson decoder = ojson::object();
  std::vector<const AddedToken*> added;
  for (const AddedToken& t : p.added_tokens) added.push_back(&t);
  std::stable_sort(added.begin(), added.end(), [](const AddedToken* a, const AddedToken* b) { return a->id < b->id; });
  for (const AddedToken* t : added) decoder[std::to_string(t->id)] = added_token_json(*t, false);
  j["added_tokens_decoder"] = decoder;
  const BertSpecialTokens& r = p.roles;
  auto role = [&](const char* key, const std::string& value) {
    if (!value.empty() && tokenizer.token_to_id(value)) j[key] = value;
  };
  if (!bert) {
    role("bos_token", r.bos);
    j["clean_up_tokenization_spaces"] = false;
    role("cls_token", r.cls);
    role("eos_token", r.eos);
    role("mask_token", r.mask);
    j["model_max_length"] = model_max_length;
    role("pad_token", r.pad);
    role("sep_token", r.sep);
    j["tokenizer_class"] = "PreTrainedTokenizerFast";
    role("unk_token", r.unk);
    return dump(j) + "\n";
  }
  j["clean_up_tokenization_spaces"] = wordpiece_decoder ? wordpiece_decoder->options().cleanup : false;
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
  // vocab.txt is a WordPiece vocabulary's file (BertTokenizer's); the other models live in tokenizer.json.
  const bool has_vocab_txt = tokenizer.model_type() == "WordPiece";
  const std::string vocab = has_vocab_txt ? vocab_txt(tokenizer) : "";
  const std::string config = tokenizer_config_json(tokenizer, model_max_length);
  const std::string specials = special_tokens_map_json(tokenizer);
  const std::string json_text = tokenizer_json(tokenizer);
  const std::vector<std::string> owned = {"vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
                                          "tokenizer.json"};
  write_directory_set(
      dir, owned,
      [&](const std::string& into) {
        if (has_vocab_txt) write_file_atomic(into + "/vocab.txt", vocab);
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
