#include "model/bert_config.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::model {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kActivations[] = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish"};

struct Preset {
  const char* name;
  int64_t layers, hidden, heads, intermediate;
};
// Same values as configs/<name>.json (a test checks that they agree).
constexpr Preset kPresets[] = {
    {"bert-tiny", 2, 128, 2, 512},    {"bert-mini", 4, 256, 4, 1024},   {"bert-small", 4, 512, 8, 2048},
    {"bert-medium", 8, 512, 8, 2048}, {"bert-base", 12, 768, 12, 3072}, {"bert-large", 24, 1024, 16, 4096},
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

int64_t get_int(const json& j, const std::string& source, const char* field, int64_t def) {
  auto it = j.find(field);
  if (it == j.end()) return def;
  if (!it->is_number_integer()) field_error(source, field, "must be an integer, got " + it->dump());
  return it->get<int64_t>();
}

double get_double(const json& j, const std::string& source, const char* field, double def) {
  auto it = j.find(field);
  if (it == j.end()) return def;
  if (!it->is_number()) field_error(source, field, "must be a number, got " + it->dump());
  return it->get<double>();
}

std::string get_string(const json& j, const std::string& source, const char* field, const std::string& def) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return def;
  if (!it->is_string()) field_error(source, field, "must be a string, got " + it->dump());
  return it->get<std::string>();
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
  const double params = double(vocab_size + max_position_embeddings + type_vocab_size) * double(hidden_size) +
                        double(num_hidden_layers) *
                            (4.0 * hidden_size * hidden_size + 2.0 * hidden_size * intermediate_size);
  const double ram = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
  if (ram > 0 && 4 * params > ram) {
    throw BadInput(source + ": the model has about " + std::to_string(int64_t(params / 1e6)) + "M parameters, " +
                       std::to_string(int64_t(4 * params / 1e9)) + " GB in fp32, more than this machine's " +
                       std::to_string(int64_t(ram / 1e9)) + " GB of memory",
                   "check hidden_size, num_hidden_layers, intermediate_size and vocab_size");
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
  positive("type_vocab_size", type_vocab_size);
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
  bool act_ok = false;
  for (const char* a : kActivations) act_ok = act_ok || hidden_act == a;
  if (!act_ok) {
    field_error(source, "hidden_act", "'" + hidden_act + "' is not supported",
                "use gelu, gelu_new, gelu_pytorch_tanh, relu or silu");
  }
  if (position_embedding_type != "absolute") {
    field_error(source, "position_embedding_type", "'" + position_embedding_type + "' is not supported",
                "bertpt implements BERT's absolute position embeddings only");
  }
  if (torch_dtype != "float32" && torch_dtype != "bfloat16" && torch_dtype != "float16") {
    field_error(source, "torch_dtype", "'" + torch_dtype + "' is not supported", "use float32 or bfloat16");
  }
}

std::string BertConfig::to_json() const {
  json j = json::object();
  for (const auto& [k, v] : extra) j[k] = json::parse(v);
  j["vocab_size"] = vocab_size;
  j["hidden_size"] = hidden_size;
  j["num_hidden_layers"] = num_hidden_layers;
  j["num_attention_heads"] = num_attention_heads;
  j["intermediate_size"] = intermediate_size;
  j["hidden_act"] = hidden_act;
  j["hidden_dropout_prob"] = hidden_dropout_prob;
  j["attention_probs_dropout_prob"] = attention_probs_dropout_prob;
  j["max_position_embeddings"] = max_position_embeddings;
  j["type_vocab_size"] = type_vocab_size;
  j["initializer_range"] = initializer_range;
  j["layer_norm_eps"] = layer_norm_eps;
  if (pad_token_id >= 0) {
    j["pad_token_id"] = pad_token_id;
  } else {
    j["pad_token_id"] = nullptr;
  }
  j["position_embedding_type"] = position_embedding_type;
  j["architectures"] = architectures;
  j["torch_dtype"] = torch_dtype;
  if (!tie_word_embeddings) j["tie_word_embeddings"] = false;
  j["model_type"] = "bert";
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
  std::string model_type = get_string(j, source, "model_type", "bert");
  if (model_type != "bert") {
    field_error(source, "model_type", "is '" + model_type + "', bertpt trains and loads BERT models only",
                "use a config with \"model_type\": \"bert\"");
  }
  BertConfig c;
  c.vocab_size = get_int(j, source, "vocab_size", c.vocab_size);
  c.hidden_size = get_int(j, source, "hidden_size", c.hidden_size);
  c.num_hidden_layers = get_int(j, source, "num_hidden_layers", c.num_hidden_layers);
  c.num_attention_heads = get_int(j, source, "num_attention_heads", c.num_attention_heads);
  c.intermediate_size = get_int(j, source, "intermediate_size", c.intermediate_size);
  c.hidden_act = get_string(j, source, "hidden_act", c.hidden_act);
  c.hidden_dropout_prob = get_double(j, source, "hidden_dropout_prob", c.hidden_dropout_prob);
  c.attention_probs_dropout_prob = get_double(j, source, "attention_probs_dropout_prob",
                                              c.attention_probs_dropout_prob);
  c.max_position_embeddings = get_int(j, source, "max_position_embeddings", c.max_position_embeddings);
  c.type_vocab_size = get_int(j, source, "type_vocab_size", c.type_vocab_size);
  c.initializer_range = get_double(j, source, "initializer_range", c.initializer_range);
  c.layer_norm_eps = get_double(j, source, "layer_norm_eps", c.layer_norm_eps);
  if (auto it = j.find("pad_token_id"); it != j.end() && it->is_null()) {
    c.pad_token_id = -1;
  } else {
    c.pad_token_id = get_int(j, source, "pad_token_id", c.pad_token_id);
  }
  c.position_embedding_type = get_string(j, source, "position_embedding_type", c.position_embedding_type);
  c.torch_dtype = get_string(j, source, "torch_dtype", c.torch_dtype);
  if (auto it = j.find("tie_word_embeddings"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) field_error(source, "tie_word_embeddings", "must be true or false, got " + it->dump());
    c.tie_word_embeddings = it->get<bool>();
  }
  if (auto it = j.find("architectures"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) field_error(source, "architectures", "must be a list of strings");
    c.architectures.clear();
    for (const auto& a : *it) {
      if (!a.is_string()) field_error(source, "architectures", "must be a list of strings");
      c.architectures.push_back(a.get<std::string>());
    }
  }
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* kk : kKnownKeys) known = known || k == kk;
    if (!known) c.extra[k] = v.dump();
  }
  c.validate(source);
  return c;
}

BertConfig BertConfig::load(const std::string& path) { return from_json(read_file(path), path); }

void BertConfig::save(const std::string& path) const { write_file_atomic(path, to_json()); }

bool BertConfig::operator==(const BertConfig& o) const {
  return vocab_size == o.vocab_size && hidden_size == o.hidden_size && num_hidden_layers == o.num_hidden_layers &&
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
      BertConfig c;
      c.num_hidden_layers = p.layers;
      c.hidden_size = p.hidden;
      c.num_attention_heads = p.heads;
      c.intermediate_size = p.intermediate;
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
