#include "model/bert_config.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"

namespace bertpt::model {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kActivations[] = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish"};

struct Preset {
  const char* name;
  int64_t layers, hidden, heads, intermediate;
};
// Same values as configs/<name>.json (a test checks that they agree). ModernBERT's base and large are
// answerdotai's ModernBERT-base/-large shapes; the smaller ones keep their GeGLU width at 1.5 H.
constexpr Preset kPresets[] = {
    {"bert-tiny", 2, 128, 2, 512},
    {"bert-mini", 4, 256, 4, 1024},
    {"bert-small", 4, 512, 8, 2048},
    {"bert-medium", 8, 512, 8, 2048},
    {"bert-base", 12, 768, 12, 3072},
    {"bert-large", 24, 1024, 16, 4096},
    {"modernbert-tiny", 3, 128, 2, 192},
    {"modernbert-mini", 4, 256, 4, 384},
    {"modernbert-small", 6, 512, 8, 768},
    {"modernbert-base", 22, 768, 12, 1152},
    {"modernbert-large", 28, 1024, 16, 2624},
    {"roberta-tiny", 2, 128, 2, 512},
    {"roberta-base", 12, 768, 12, 3072},
};

const char* const kModelTypes[] = {"bert", "modernbert", "roberta", "xlm-roberta"};

// ModernBertConfig's keys that map onto ModernBertFields (or onto BertConfig under another name);
// everything else goes to `extra`.
const char* const kModernKeys[] = {
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "hidden_activation",
    "max_position_embeddings",
    "initializer_range",
    "norm_eps",
    "pad_token_id",
    "architectures",
    "torch_dtype",
    "tie_word_embeddings",
    "model_type",
    "layer_types",
    "global_attn_every_n_layers",
    "rope_parameters",
    "global_rope_theta",
    "local_rope_theta",
    "local_attention",
    "norm_bias",
    "attention_bias",
    "mlp_bias",
    "decoder_bias",
    "classifier_bias",
    "embedding_dropout",
    "attention_dropout",
    "mlp_dropout",
    "classifier_dropout",
    "classifier_pooling",
    "classifier_activation",
    "initializer_cutoff_factor",
};

// The keys BertConfig models itself; everything else goes to `extra`.
const char* const kKnownKeys[] = {
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "hidden_act",
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "max_position_embeddings",
    "type_vocab_size",
    "initializer_range",
    "layer_norm_eps",
    "pad_token_id",
    "position_embedding_type",
    "architectures",
    "torch_dtype",
    "tie_word_embeddings",
    "model_type",
};

[[noreturn]] void field_error(const std::string& source, const std::string& field, const std::string& what,
                              const std::string& hint = {}) {
  throw BadInput(source + ": field '" + field + "' " + what, hint);
}

// Optional fields through common/json_fields.h (a wrong type names the file and the field); HF writes
// null for some unset strings and switches, which read as absent.
int64_t get_int(const json& j, const std::string& source, const char* field, int64_t def) {
  const JsonFields f(j, source);
  return f.has(field) ? f.i64(field) : def;
}

double get_double(const json& j, const std::string& source, const char* field, double def) {
  const JsonFields f(j, source);
  return f.has(field) ? f.number(field) : def;
}

std::string get_string(const json& j, const std::string& source, const char* field, const std::string& def) {
  const JsonFields f(j, source);
  return f.has(field) && !j[field].is_null() ? f.str(field) : def;
}

bool get_bool(const json& j, const std::string& source, const char* field, bool def) {
  const JsonFields f(j, source);
  return f.has(field) && !j[field].is_null() ? f.boolean(field) : def;
}

template <size_t N>
bool is_one_of(const std::string& key, const char* const (&keys)[N]) {
  for (const char* k : keys) {
    if (key == k) return true;
  }
  return false;
}

std::string exe_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

}  // namespace

// Upper bounds far above any BERT ever trained (bert-large: 1024 wide, 24 layers, 30k tokens;
// multilingual vocabularies reach 250k): a value beyond them is a typo or a hostile file, and would
// otherwise end in a multi-terabyte allocation that names nothing.
void BertConfig::check_bounds(const std::string& source) const {
  auto at_most = [&](const char* field, int64_t v, int64_t max) {
    if (v > max) {
      field_error(source, field, "is " + std::to_string(v) + ", more than bertpt accepts (" + std::to_string(max) + ")",
                  "is this the config.json you meant? bert-large has hidden_size 1024 and 24 layers");
    }
  };
  at_most("vocab_size", vocab_size, int64_t(1) << 22);
  at_most("hidden_size", hidden_size, 16384);
  at_most("num_hidden_layers", num_hidden_layers, 512);
  at_most("num_attention_heads", num_attention_heads, 1024);
  at_most("intermediate_size", intermediate_size, 131072);
  at_most("max_position_embeddings", max_position_embeddings, 65536);
  at_most("type_vocab_size", type_vocab_size, 1024);
  // Within those bounds a model can still outgrow the machine: its fp32 weights alone must fit in RAM.
  // (ModernBERT: no position or token-type table, a GeGLU MLP of 3·H·I.)
  const double tables = is_modernbert() ? double(vocab_size)
                                        : double(vocab_size + max_position_embeddings + type_vocab_size);
  const double mlp = (is_modernbert() ? 3.0 : 2.0) * hidden_size * intermediate_size;
  const double params = tables * double(hidden_size) +
                        double(num_hidden_layers) * (4.0 * hidden_size * hidden_size + mlp);
  const double ram = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
  if (ram > 0 && 4 * params > ram) {
    throw BadInput(source + ": the model has about " + std::to_string(int64_t(params / 1e6)) + "M parameters, " +
                       std::to_string(int64_t(4 * params / 1e9)) + " GB in fp32, more than this machine's " +
                       std::to_string(int64_t(ram / 1e9)) + " GB of memory",
                   "check hidden_size, num_hidden_layers, intermediate_size and vocab_size");
  }
}

void BertConfig::validate_modern(const std::string& source) const {
  const ModernBertFields& m = modern;
  if (int64_t(m.layer_types.size()) != num_hidden_layers) {
    field_error(source, "layer_types",
                "has " + std::to_string(m.layer_types.size()) + " entries for " + std::to_string(num_hidden_layers) +
                    " layers",
                "one \"full_attention\" or \"sliding_attention\" per layer");
  }
  for (const auto& t : m.layer_types) {
    if (t != "full_attention" && t != "sliding_attention") {
      field_error(source, "layer_types", "has '" + t + "'", "use \"full_attention\" or \"sliding_attention\"");
    }
  }
  if (head_dim() % 2 != 0) {
    field_error(source, "hidden_size", "/ num_attention_heads must be even for rotary position embeddings");
  }
  if (m.local_attention < 2) field_error(source, "local_attention", "must be at least 2");
  for (double theta : {m.global_rope_theta, m.local_rope_theta}) {
    if (!(theta > 1.0 && std::isfinite(theta))) field_error(source, "rope_theta", "must be a number above 1");
  }
  for (const auto& [field, v] : {std::pair<const char*, double>{"embedding_dropout", m.embedding_dropout},
                                 {"attention_dropout", m.attention_dropout},
                                 {"mlp_dropout", m.mlp_dropout},
                                 {"classifier_dropout", m.classifier_dropout}}) {
    if (!(v >= 0.0 && v < 1.0)) field_error(source, field, "must be in [0, 1), got " + std::to_string(v));
  }
  if (m.classifier_pooling != "cls" && m.classifier_pooling != "mean") {
    field_error(source, "classifier_pooling", "is '" + m.classifier_pooling + "'", "use \"cls\" or \"mean\"");
  }
  if (!is_one_of(m.classifier_activation, kActivations)) {
    field_error(source, "classifier_activation", "'" + m.classifier_activation + "' is not supported",
                "use gelu, gelu_new, gelu_pytorch_tanh, relu or silu");
  }
  if (!(m.initializer_cutoff_factor > 0.0 && std::isfinite(m.initializer_cutoff_factor))) {
    field_error(source, "initializer_cutoff_factor", "must be a positive number");
  }
}

// RoBERTa's position ids start at pad_token_id + 1 (the pad row is the padding's own position).
void BertConfig::validate_roberta(const std::string& source) const {
  if (pad_token_id < 0) {
    field_error(source, "pad_token_id", "must be set for " + model_type + ": its position ids are counted from it",
                "RoBERTa and XLM-R tokenizers have <pad> = 1");
  }
  if (max_sequence_length() < 1) {
    field_error(source, "max_position_embeddings",
                "(" + std::to_string(max_position_embeddings) + ") leaves no position after pad_token_id (" +
                    std::to_string(pad_token_id) + ")",
                "RoBERTa's positions start at pad_token_id + 1: roberta-base has 514 for 512 tokens");
  }
}

void BertConfig::validate(const std::string& source) const {
  auto positive = [&](const char* field, int64_t v) {
    if (v <= 0) field_error(source, field, "must be positive, got " + std::to_string(v));
  };
  positive("vocab_size", vocab_size);
  positive("hidden_size", hidden_size);
  positive("num_hidden_layers", num_hidden_layers);
  positive("num_attention_heads", num_attention_heads);
  positive("intermediate_size", intermediate_size);
  positive("max_position_embeddings", max_position_embeddings);
  if (!is_modernbert()) positive("type_vocab_size", type_vocab_size);
  check_bounds(source);
  if (hidden_size % num_attention_heads != 0) {
    field_error(source, "hidden_size",
                "(" + std::to_string(hidden_size) + ") is not a multiple of num_attention_heads (" +
                    std::to_string(num_attention_heads) + ")",
                "choose num_attention_heads dividing hidden_size, e.g. hidden_size / 64");
  }
  auto probability = [&](const char* field, double v) {
    if (!(v >= 0.0 && v < 1.0)) field_error(source, field, "must be in [0, 1), got " + std::to_string(v));
  };
  probability("hidden_dropout_prob", hidden_dropout_prob);
  probability("attention_probs_dropout_prob", attention_probs_dropout_prob);
  if (!(initializer_range > 0.0 && std::isfinite(initializer_range))) {
    field_error(source, "initializer_range", "must be a positive number, got " + std::to_string(initializer_range));
  }
  if (!(layer_norm_eps > 0.0 && std::isfinite(layer_norm_eps))) {
    field_error(source, "layer_norm_eps", "must be a positive number");
  }
  if (pad_token_id < -1 || pad_token_id >= vocab_size) {
    field_error(source, "pad_token_id",
                "(" + std::to_string(pad_token_id) + ") is outside the vocabulary [0, " + std::to_string(vocab_size) +
                    ")");
  }
  if (is_roberta()) validate_roberta(source);
  if (!is_one_of(hidden_act, kActivations)) {
    field_error(source, is_modernbert() ? "hidden_activation" : "hidden_act", "'" + hidden_act + "' is not supported",
                "use gelu, gelu_new, gelu_pytorch_tanh, relu or silu");
  }
  if (is_modernbert()) {
    validate_modern(source);
  } else if (position_embedding_type != "absolute") {
    field_error(source, "position_embedding_type", "'" + position_embedding_type + "' is not supported",
                "bertpt implements BERT's absolute position embeddings only");
  }
  if (torch_dtype != "float32" && torch_dtype != "bfloat16" && torch_dtype != "float16") {
    field_error(source, "torch_dtype", "'" + torch_dtype + "' is not supported", "use float32 or bfloat16");
  }
}

namespace {

// The fields both architectures share, under the same JSON names.
void write_common(json& j, const BertConfig& c) {
  for (const auto& [k, v] : c.extra) j[k] = json::parse(v);
  j["vocab_size"] = c.vocab_size;
  j["hidden_size"] = c.hidden_size;
  j["num_hidden_layers"] = c.num_hidden_layers;
  j["num_attention_heads"] = c.num_attention_heads;
  j["intermediate_size"] = c.intermediate_size;
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["initializer_range"] = c.initializer_range;
  j["pad_token_id"] = c.pad_token_id >= 0 ? json(c.pad_token_id) : json(nullptr);
  j["architectures"] = c.architectures;
  j["torch_dtype"] = c.torch_dtype;
}

// ModernBERT's fields as transformers 5 writes them (rope_parameters per layer type, layer_types).
void write_modern(json& j, const BertConfig& c) {
  const ModernBertFields& m = c.modern;
  j["hidden_activation"] = c.hidden_act;
  j["norm_eps"] = c.layer_norm_eps;
  j["tie_word_embeddings"] = c.tie_word_embeddings;
  j["layer_types"] = m.layer_types;
  j["rope_parameters"] = {{"full_attention", {{"rope_theta", m.global_rope_theta}, {"rope_type", "default"}}},
                          {"sliding_attention", {{"rope_theta", m.local_rope_theta}, {"rope_type", "default"}}}};
  j["local_attention"] = m.local_attention;
  j["norm_bias"] = m.norm_bias;
  j["attention_bias"] = m.attention_bias;
  j["mlp_bias"] = m.mlp_bias;
  j["decoder_bias"] = m.decoder_bias;
  j["classifier_bias"] = m.classifier_bias;
  j["embedding_dropout"] = m.embedding_dropout;
  j["attention_dropout"] = m.attention_dropout;
  j["mlp_dropout"] = m.mlp_dropout;
  j["classifier_dropout"] = m.classifier_dropout;
  j["classifier_pooling"] = m.classifier_pooling;
  j["classifier_activation"] = m.classifier_activation;
  j["initializer_cutoff_factor"] = m.initializer_cutoff_factor;
  j["model_type"] = "modernbert";
}

// BERT's fields; RoBERTa and XLM-R as transformers 5 writes their configs: the same fields,
// tie_word_embeddings always, no position_embedding_type (kept in `extra` when the file had one).
void write_bert(json& j, const BertConfig& c) {
  j["hidden_act"] = c.hidden_act;
  j["hidden_dropout_prob"] = c.hidden_dropout_prob;
  j["attention_probs_dropout_prob"] = c.attention_probs_dropout_prob;
  j["type_vocab_size"] = c.type_vocab_size;
  j["layer_norm_eps"] = c.layer_norm_eps;
  if (c.is_roberta()) {
    j["tie_word_embeddings"] = c.tie_word_embeddings;
  } else {
    j["position_embedding_type"] = c.position_embedding_type;
    if (!c.tie_word_embeddings) j["tie_word_embeddings"] = false;
  }
  j["model_type"] = c.model_type;
}

void read_common(const json& j, const std::string& source, BertConfig& c) {
  c.vocab_size = get_int(j, source, "vocab_size", c.vocab_size);
  c.hidden_size = get_int(j, source, "hidden_size", c.hidden_size);
  c.num_hidden_layers = get_int(j, source, "num_hidden_layers", c.num_hidden_layers);
  c.num_attention_heads = get_int(j, source, "num_attention_heads", c.num_attention_heads);
  c.intermediate_size = get_int(j, source, "intermediate_size", c.intermediate_size);
  c.max_position_embeddings = get_int(j, source, "max_position_embeddings", c.max_position_embeddings);
  c.initializer_range = get_double(j, source, "initializer_range", c.initializer_range);
  if (auto it = j.find("pad_token_id"); it != j.end() && it->is_null()) {
    c.pad_token_id = -1;
  } else {
    c.pad_token_id = get_int(j, source, "pad_token_id", c.pad_token_id);
  }
  c.torch_dtype = get_string(j, source, "torch_dtype", c.torch_dtype);
  c.tie_word_embeddings = get_bool(j, source, "tie_word_embeddings", c.tie_word_embeddings);
  if (auto it = j.find("architectures"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) field_error(source, "architectures", "must be a list of strings");
    c.architectures.clear();
    for (const auto& a : *it) {
      if (!a.is_string()) field_error(source, "architectures", "must be a list of strings");
      c.architectures.push_back(a.get<std::string>());
    }
  }
}

void read_bert(const json& j, const std::string& source, BertConfig& c) {
  c.hidden_act = get_string(j, source, "hidden_act", c.hidden_act);
  c.hidden_dropout_prob = get_double(j, source, "hidden_dropout_prob", c.hidden_dropout_prob);
  c.attention_probs_dropout_prob = get_double(j, source, "attention_probs_dropout_prob",
                                              c.attention_probs_dropout_prob);
  c.type_vocab_size = get_int(j, source, "type_vocab_size", c.type_vocab_size);
  c.layer_norm_eps = get_double(j, source, "layer_norm_eps", c.layer_norm_eps);
  c.position_embedding_type = get_string(j, source, "position_embedding_type", c.position_embedding_type);
}

// A rope theta: rope_parameters.<layer type>.rope_theta (transformers 5), else the flat key of
// older ModernBERT configs (answerdotai/ModernBERT-base: global_rope_theta, local_rope_theta).
double read_rope_theta(const json& j, const std::string& source, const char* layer_type, const char* flat_key,
                       double def) {
  auto rp = j.find("rope_parameters");
  if (rp != j.end() && rp->is_object() && rp->contains(layer_type)) {
    const json& params = (*rp)[layer_type];
    const std::string field = std::string("rope_parameters.") + layer_type;
    if (!params.is_object()) field_error(source, field.c_str(), "must be an object");
    auto type = params.find("rope_type");
    if (type != params.end() && !type->is_null() && *type != "default") {
      field_error(source, (field + ".rope_type").c_str(),
                  "is " + type->dump() + ", bertpt implements \"default\" RoPE only");
    }
    auto theta = params.find("rope_theta");
    if (theta != params.end()) {
      if (!theta->is_number()) field_error(source, (field + ".rope_theta").c_str(), "must be a number");
      return theta->get<double>();
    }
  }
  return get_double(j, source, flat_key, def);
}

void read_layer_types(const json& j, const std::string& source, BertConfig& c) {
  ModernBertFields& m = c.modern;
  m.layer_types.clear();
  if (auto it = j.find("layer_types"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) field_error(source, "layer_types", "must be a list of strings");
    for (const auto& t : *it) {
      if (!t.is_string()) field_error(source, "layer_types", "must be a list of strings");
      m.layer_types.push_back(t.get<std::string>());
    }
    return;
  }
  const int64_t every = get_int(j, source, "global_attn_every_n_layers", 3);
  if (every <= 0) field_error(source, "global_attn_every_n_layers", "must be positive");
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    m.layer_types.push_back(i % every == 0 ? "full_attention" : "sliding_attention");
  }
}

void read_modern(const json& j, const std::string& source, BertConfig& c) {
  ModernBertFields& m = c.modern;
  c.hidden_act = get_string(j, source, "hidden_activation", c.hidden_act);
  c.layer_norm_eps = get_double(j, source, "norm_eps", c.layer_norm_eps);
  read_layer_types(j, source, c);
  m.global_rope_theta = read_rope_theta(j, source, "full_attention", "global_rope_theta", m.global_rope_theta);
  m.local_rope_theta = read_rope_theta(j, source, "sliding_attention", "local_rope_theta", m.local_rope_theta);
  m.local_attention = get_int(j, source, "local_attention", m.local_attention);
  m.norm_bias = get_bool(j, source, "norm_bias", m.norm_bias);
  m.attention_bias = get_bool(j, source, "attention_bias", m.attention_bias);
  m.mlp_bias = get_bool(j, source, "mlp_bias", m.mlp_bias);
  m.decoder_bias = get_bool(j, source, "decoder_bias", m.decoder_bias);
  m.classifier_bias = get_bool(j, source, "classifier_bias", m.classifier_bias);
  m.embedding_dropout = get_double(j, source, "embedding_dropout", m.embedding_dropout);
  m.attention_dropout = get_double(j, source, "attention_dropout", m.attention_dropout);
  m.mlp_dropout = get_double(j, source, "mlp_dropout", m.mlp_dropout);
  m.classifier_dropout = get_double(j, source, "classifier_dropout", m.classifier_dropout);
  m.classifier_pooling = get_string(j, source, "classifier_pooling", m.classifier_pooling);
  m.classifier_activation = get_string(j, source, "classifier_activation", m.classifier_activation);
  m.initializer_cutoff_factor = get_double(j, source, "initializer_cutoff_factor", m.initializer_cutoff_factor);
}

}  // namespace

std::string BertConfig::to_json() const {
  json j = json::object();
  write_common(j, *this);
  if (is_modernbert()) {
    write_modern(j, *this);
  } else {
    write_bert(j, *this);
  }
  // nlohmann's object is a sorted map: keys come out sorted, like transformers' to_json_string.
  return j.dump(2) + "\n";
}

BertConfig BertConfig::from_json(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number too large for its type (out_of_range)
    throw BadInput(source + ": not valid JSON: " + e.what(), "a model config is a Hugging Face config.json");
  }
  if (!j.is_object()) throw BadInput(source + ": not a JSON object", "a model config is a Hugging Face config.json");
  const std::string model_type = get_string(j, source, "model_type", "bert");
  if (!is_one_of(model_type, kModelTypes)) {
    std::string list;
    for (const char* t : kModelTypes) list += std::string(list.empty() ? "" : ", ") + "\"" + t + "\"";
    field_error(source, "model_type",
                "is '" + model_type + "', bertpt trains and loads BERT, ModernBERT, RoBERTa and XLM-R models",
                "use a config with \"model_type\" one of " + list);
  }
  BertConfig c = model_type == "modernbert" ? modernbert_defaults() : BertConfig();
  if (model_type == "roberta" || model_type == "xlm-roberta") c = roberta_defaults(model_type);
  read_common(j, source, c);
  if (c.is_modernbert()) {
    read_modern(j, source, c);
  } else {
    read_bert(j, source, c);
  }
  for (const auto& [k, v] : j.items()) {
    const bool known = c.is_modernbert()
                           ? is_one_of(k, kModernKeys)
                           : is_one_of(k, kKnownKeys) && !(c.is_roberta() && k == "position_embedding_type");
    if (!known) c.extra[k] = v.dump();
  }
  c.validate(source);
  return c;
}

BertConfig BertConfig::load(const std::string& path) { return from_json(read_file(path), path); }

void BertConfig::save(const std::string& path) const { write_file_atomic(path, to_json()); }

bool ModernBertFields::operator==(const ModernBertFields& o) const {
  return layer_types == o.layer_types && global_rope_theta == o.global_rope_theta &&
         local_rope_theta == o.local_rope_theta && local_attention == o.local_attention && norm_bias == o.norm_bias &&
         attention_bias == o.attention_bias && mlp_bias == o.mlp_bias && decoder_bias == o.decoder_bias &&
         classifier_bias == o.classifier_bias && embedding_dropout == o.embedding_dropout &&
         attention_dropout == o.attention_dropout && mlp_dropout == o.mlp_dropout &&
         classifier_dropout == o.classifier_dropout && classifier_pooling == o.classifier_pooling &&
         classifier_activation == o.classifier_activation && initializer_cutoff_factor == o.initializer_cutoff_factor;
}

namespace {

// The prefix of transformers' class names: "Bert", "ModernBert", "Roberta", "XLMRoberta".
std::string class_prefix(const BertConfig& c) {
  if (c.is_modernbert()) return "ModernBert";
  if (c.model_type == "roberta") return "Roberta";
  if (c.model_type == "xlm-roberta") return "XLMRoberta";
  return "Bert";
}

}  // namespace

std::string BertConfig::masked_lm_class() const { return class_prefix(*this) + "ForMaskedLM"; }

std::string BertConfig::sequence_classifier_class() const { return class_prefix(*this) + "ForSequenceClassification"; }

std::string BertConfig::token_classifier_class() const { return class_prefix(*this) + "ForTokenClassification"; }

int64_t BertConfig::max_sequence_length() const {
  return is_roberta() ? max_position_embeddings - pad_token_id - 1 : max_position_embeddings;
}

std::vector<std::string> supported_model_types() { return {std::begin(kModelTypes), std::end(kModelTypes)}; }

BertConfig roberta_defaults(const std::string& model_type) {
  BertConfig c;
  c.model_type = model_type;
  c.vocab_size = model_type == "xlm-roberta" ? 30522 : 50265;
  c.pad_token_id = 1;
  c.architectures = {c.masked_lm_class()};
  return c;
}

BertConfig modernbert_defaults() {
  BertConfig c;
  c.model_type = "modernbert";
  c.vocab_size = 50368;
  c.intermediate_size = 1152;
  c.num_hidden_layers = 22;
  c.max_position_embeddings = 8192;
  c.layer_norm_eps = 1e-5;
  c.pad_token_id = 50283;
  c.hidden_dropout_prob = 0.0;  // unused: ModernBERT's dropouts are in `modern`
  c.attention_probs_dropout_prob = 0.0;
  c.architectures = {"ModernBertForMaskedLM"};
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    c.modern.layer_types.push_back(i % 3 == 0 ? "full_attention" : "sliding_attention");
  }
  return c;
}

bool BertConfig::operator==(const BertConfig& o) const {
  return model_type == o.model_type && modern == o.modern && vocab_size == o.vocab_size &&
         hidden_size == o.hidden_size && num_hidden_layers == o.num_hidden_layers &&
         num_attention_heads == o.num_attention_heads && intermediate_size == o.intermediate_size &&
         hidden_act == o.hidden_act && hidden_dropout_prob == o.hidden_dropout_prob &&
         attention_probs_dropout_prob == o.attention_probs_dropout_prob &&
         max_position_embeddings == o.max_position_embeddings && type_vocab_size == o.type_vocab_size &&
         initializer_range == o.initializer_range && layer_norm_eps == o.layer_norm_eps &&
         pad_token_id == o.pad_token_id && position_embedding_type == o.position_embedding_type &&
         architectures == o.architectures && torch_dtype == o.torch_dtype &&
         tie_word_embeddings == o.tie_word_embeddings && extra == o.extra;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

BertConfig builtin_preset(const std::string& name) {
  for (const auto& p : kPresets) {
    if (name == p.name) {
      const bool modern = name.rfind("modernbert-", 0) == 0;
      const bool roberta = name.rfind("roberta-", 0) == 0;
      BertConfig c = modern ? modernbert_defaults() : roberta ? roberta_defaults("roberta") : BertConfig();
      c.num_hidden_layers = p.layers;
      c.hidden_size = p.hidden;
      c.num_attention_heads = p.heads;
      c.intermediate_size = p.intermediate;
      if (modern) {
        c.vocab_size = 32000;  // like the BERT presets: training replaces it with the tokenizer's
        c.pad_token_id = 0;    // bertpt's tokenizers put [PAD] first
        // ModernBertConfig's defaults for these are ids of answerdotai's 50k vocabulary, out of range
        // here (transformers warns); the model does not use them.
        for (const char* key : {"bos_token_id", "cls_token_id", "eos_token_id", "sep_token_id"}) c.extra[key] = "null";
        c.modern.layer_types.clear();
        for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
          c.modern.layer_types.push_back(i % 3 == 0 ? "full_attention" : "sliding_attention");
        }
      }
      if (roberta) {  // FacebookAI/roberta-base's config.json, with BERT presets' placeholder vocabulary
        c.vocab_size = 32000;
        c.max_position_embeddings = 514;
        c.type_vocab_size = 1;
        c.layer_norm_eps = 1e-5;
        c.extra["bos_token_id"] = "0";
        c.extra["eos_token_id"] = "2";
      }
      return c;
    }
  }
  std::string list;
  for (const auto& n : preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw BadInput("unknown model preset '" + name + "'", "use one of " + list + ", or a path to a config.json");
}

std::vector<std::string> config_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("BERTPT_CONFIG_DIR"); env && *env) dirs.emplace_back(env);
#ifdef BERTPT_CONFIG_DIR
  dirs.emplace_back(BERTPT_CONFIG_DIR);
#endif
  if (std::string d = exe_dir(); !d.empty()) {
    dirs.push_back(d + "/../share/bertpt/configs");
    dirs.push_back(d + "/configs");
  }
  return dirs;
}

bool is_preset_name(const std::string& name) {
  std::error_code ec;
  if (fs::exists(name, ec) || name.find('/') != std::string::npos) return false;
  std::string n = name;
  if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) n.resize(n.size() - 5);
  for (const auto& p : preset_names()) {
    if (p == n) return true;
  }
  return false;
}

BertConfig resolve_model_config(const std::string& name_or_path) {
  std::error_code ec;
  fs::path p(name_or_path);
  if (fs::is_directory(p, ec)) {
    fs::path cfg = p / "config.json";
    if (!fs::is_regular_file(cfg, ec)) {
      throw BadInput(name_or_path + " is a directory without config.json",
                     "pass a checkpoint directory (config.json + model.safetensors) or a preset name");
    }
    return BertConfig::load(cfg.string());
  }
  if (fs::is_regular_file(p, ec)) return BertConfig::load(p.string());

  // A preset name. Anything with a slash was meant as a path.
  std::string name = name_or_path;
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
  bool is_preset = false;
  for (const auto& n : preset_names()) is_preset = is_preset || n == name;
  if (name_or_path.find('/') != std::string::npos || !is_preset) {
    std::string list;
    for (const auto& n : preset_names()) list += (list.empty() ? "" : ", ") + n;
    throw BadInput("model '" + name_or_path + "' is neither an existing path nor a preset",
                   "use one of " + list + ", a config.json, or a checkpoint directory");
  }
  for (const auto& dir : config_search_path()) {
    fs::path f = fs::path(dir) / (name + ".json");
    if (fs::is_regular_file(f, ec)) return BertConfig::load(f.string());
  }
  BertConfig c = builtin_preset(name);
  c.validate(name);
  return c;
}

}  // namespace bertpt::model
