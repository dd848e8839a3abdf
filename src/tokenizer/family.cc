#include "tokenizer/family.h"

#include <algorithm>

#include "common/error.h"
#include "tokenizer/hf_files.h"

namespace bertpt::tokenizer {
namespace {

using ojson = nlohmann::ordered_json;

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The id of `token` in `tokens` (id order); the trainers put every special token in the vocabulary.
size_t id_of(const std::vector<std::string>& tokens, const std::string& token) {
  const auto it = std::find(tokens.begin(), tokens.end(), token);
  if (it == tokens.end()) throw Error(Error::Kind::Internal, "special token '" + token + "' not in the vocabulary");
  return size_t(it - tokens.begin());
}

// tokenizer.json's added_tokens: every special token; a mask token takes the space before it
// (lstrip), as RoBERTa's and XLM-R's files have it, so "is <mask>" reads as "is" + <mask>.
ojson added_tokens_json(const std::vector<std::string>& specials, const std::vector<std::string>& tokens,
                        const BertSpecialTokens& roles) {
  ojson added = ojson::array();
  for (const std::string& special : specials) {
    added.push_back({{"id", id_of(tokens, special)},
                     {"content", special},
                     {"single_word", false},
                     {"lstrip", special == roles.mask},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  return added;
}

ojson special_json(const std::string& token, size_t id) { return {{"id", token}, {"ids", {id}}, {"tokens", {token}}}; }

// <s> A </s> (pair: <s> A </s> </s> B </s>, every type id 0) for RoBERTa's names, else BERT's
// [CLS] A [SEP] (pair: ... B:1 [SEP]:1), as ModernBERT's file has it.
ojson post_processor_json(const std::vector<std::string>& tokens, const BertSpecialTokens& roles) {
  const size_t cls = id_of(tokens, roles.cls), sep = id_of(tokens, roles.sep);
  if (roles.cls == "<s>") {
    return {{"type", "RobertaProcessing"},
            {"sep", {roles.sep, sep}},
            {"cls", {roles.cls, cls}},
            {"trim_offsets", true},
            {"add_prefix_space", false}};
  }
  auto special = [](const std::string& id, int type) {
    return ojson{{"SpecialToken", {{"id", id}, {"type_id", type}}}};
  };
  auto sequence = [](const char* id, int type) { return ojson{{"Sequence", {{"id", id}, {"type_id", type}}}}; };
  return {{"type", "TemplateProcessing"},
          {"single", {special(roles.cls, 0), sequence("A", 0), special(roles.sep, 0)}},
          {"pair",
           {special(roles.cls, 0), sequence("A", 0), special(roles.sep, 0), sequence("B", 1), special(roles.sep, 1)}},
          {"special_tokens", {{roles.cls, special_json(roles.cls, cls)}, {roles.sep, special_json(roles.sep, sep)}}}};
}

ojson decoder_json(TokenizerFamily family) {
  if (family == TokenizerFamily::Bpe) {
    return {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
  }
  return {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}, {"split", true}};
}

// The whole tokenizer.json around `model`, parsed by the components' readers, with its roles.
Tokenizer assemble(TokenizerFamily family, ojson model, const std::vector<std::string>& specials,
                   const std::vector<std::string>& tokens, const std::string& source) {
  const BertSpecialTokens roles = roles_of(specials);
  if (roles.cls.empty() || roles.sep.empty()) {
    throw BadInput(source + ": the special tokens name no <s>/[CLS] or no </s>/[SEP]",
                   "the template puts them around every sequence: e.g. --special-tokens '<s>,<pad>,</s>,<unk>,<mask>'");
  }
  ojson j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  j["added_tokens"] = added_tokens_json(specials, tokens, roles);
  j["normalizer"] = family_normalizer(family);
  j["pre_tokenizer"] = family_pre_tokenizer(family);
  j["post_processor"] = post_processor_json(tokens, roles);
  j["decoder"] = decoder_json(family);
  j["model"] = std::move(model);
  Tokenizer::Parts parts = parse_tokenizer_json(j.dump(), source).parts();
  parts.roles = roles;
  return Tokenizer(std::move(parts));
}

}  // namespace

std::string family_name(TokenizerFamily family) {
  switch (family) {
    case TokenizerFamily::WordPiece: return "wordpiece";
    case TokenizerFamily::Bpe: return "bpe";
    case TokenizerFamily::Unigram: return "unigram";
  }
  return "?";
}

TokenizerFamily parse_family(const std::string& name) {
  for (TokenizerFamily f : {TokenizerFamily::WordPiece, TokenizerFamily::Bpe, TokenizerFamily::Unigram}) {
    if (name == family_name(f)) return f;
  }
  throw BadInput("--model '" + name + "' is not a tokenizer model",
                 "choose wordpiece (BERT), bpe (RoBERTa, "
                 "ModernBERT: byte-level) or unigram (XLM-R)");
}

std::vector<std::string> default_special_tokens(TokenizerFamily family) {
  if (family == TokenizerFamily::WordPiece) return {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  return {"<s>", "<pad>", "</s>", "<unk>", "<mask>"};
}

BertSpecialTokens roles_of(const std::vector<std::string>& specials) {
  return roles_by_name([&](const std::string& name) { return contains(specials, name); });
}

ojson family_normalizer(TokenizerFamily family) {
  if (family != TokenizerFamily::Unigram) return nullptr;
  return {{"type", "Sequence"},
          {"normalizers",
           {{{"type", "Nmt"}},
            {{"type", "NFKC"}},
            {{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}}}}};
}

ojson family_pre_tokenizer(TokenizerFamily family) {
  if (family == TokenizerFamily::Bpe) {
    return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  }
  if (family == TokenizerFamily::Unigram) {
    return {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}, {"split", true}};
  }
  return {{"type", "BertPreTokenizer"}};
}

Tokenizer bpe_tokenizer(const TrainedVocabulary& vocab, const std::vector<std::string>& specials,
                        const std::string& source) {
  ojson v = ojson::object();
  auto& entries = static_cast<std::vector<std::pair<const std::string, ojson>>&>(v.get_ref<ojson::object_t&>());
  for (size_t id = 0; id < vocab.tokens.size(); ++id) entries.emplace_back(vocab.tokens[id], id);
  ojson merges = ojson::array();
  for (const auto& [left, right] : vocab.merge_pairs) merges.push_back({left, right});
  const BertSpecialTokens roles = roles_of(specials);
  ojson model = {{"type", "BPE"},
                 {"dropout", nullptr},
                 {"unk_token", roles.unk.empty() ? ojson() : ojson(roles.unk)},
                 {"continuing_subword_prefix", nullptr},
                 {"end_of_word_suffix", nullptr},
                 {"fuse_unk", false},
                 {"byte_fallback", false},
                 {"ignore_merges", false},
                 {"vocab", std::move(v)},
                 {"merges", std::move(merges)}};
  return assemble(TokenizerFamily::Bpe, std::move(model), specials, vocab.tokens, source);
}

Tokenizer unigram_tokenizer(const TrainedUnigram& trained, const std::vector<std::string>& specials,
                            const std::string& source) {
  ojson pieces = ojson::array();
  std::vector<std::string> tokens;
  for (const auto& [piece, score] : trained.pieces) {
    pieces.push_back({piece, score});
    tokens.push_back(piece);
  }
  ojson model = {{"type", "Unigram"},
                 {"unk_id", trained.unk_id ? ojson(*trained.unk_id) : ojson()},
                 {"vocab", std::move(pieces)},
                 {"byte_fallback", false}};
  return assemble(TokenizerFamily::Unigram, std::move(model), specials, tokens, source);
}

}  // namespace bertpt::tokenizer
