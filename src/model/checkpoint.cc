#include "model/checkpoint.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string_view>
#include <unordered_set>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "io/safetensors.h"
#include "model/architecture.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; bertpt copies tensor memory as is");

namespace bertpt::model {

namespace fs = std::filesystem;

namespace {

// The keys of an MLM head whose decoder may be tied to the word embeddings, per architecture.
struct TiedHeadKeys {
  const char* embeddings;      // the word embeddings: also the tied decoder's weight
  const char* decoder_weight;  // the decoder's weight in files that store it (untied, or both copies)
  const char* bias;            // the tied head's bias
  const char* decoder_bias;    // the untied decoder's bias, an alias of `bias`; nullptr: none
};
constexpr TiedHeadKeys kTiedHeads[] = {
    // BERT (bert.h)
    {"bert.embeddings.word_embeddings.weight", "cls.predictions.decoder.weight", "cls.predictions.bias",
     "cls.predictions.decoder.bias"},
    // RoBERTa / XLM-R (roberta.h)
    {"roberta.embeddings.word_embeddings.weight", "lm_head.decoder.weight", "lm_head.bias", "lm_head.decoder.bias"},
    // ModernBERT (modernbert.h): the decoder's bias has one name whether tied or not
    {"model.embeddings.tok_embeddings.weight", "decoder.weight", "decoder.bias", nullptr},
};
// The encoder's prefix in a task model's keys: a bare encoder's file lacks it, and a bare encoder
// loading a task model's file must add it.
constexpr const char* kEncoderPrefixes[] = {"bert.", "model.", "roberta."};

bool is(const char* key, const std::string& name) { return key && name == key; }

io::DType to_io_dtype(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: return io::DType::F32;
    case c10::kBFloat16: return io::DType::BF16;
    case c10::kHalf: return io::DType::F16;
    case c10::kDouble: return io::DType::F64;
    case c10::kLong: return io::DType::I64;
    case c10::kInt: return io::DType::I32;
    case c10::kShort: return io::DType::I16;
    case c10::kChar: return io::DType::I8;
    case c10::kByte: return io::DType::U8;
    case c10::kBool: return io::DType::BOOL;
    default: throw Error(Error::Kind::Internal, std::string("no safetensors dtype for ") + c10::toString(t));
  }
}

c10::ScalarType to_scalar_type(io::DType t) {
  switch (t) {
    case io::DType::F32: return c10::kFloat;
    case io::DType::BF16: return c10::kBFloat16;
    case io::DType::F16: return c10::kHalf;
    case io::DType::F64: return c10::kDouble;
    case io::DType::I64: return c10::kLong;
    case io::DType::I32: return c10::kInt;
    case io::DType::I16: return c10::kShort;
    case io::DType::I8: return c10::kChar;
    case io::DType::U8: return c10::kByte;
    case io::DType::BOOL: return c10::kBool;
  }
  throw Error(Error::Kind::Internal, "unknown safetensors dtype");
}

bool is_float(io::DType t) {
  return t == io::DType::F32 || t == io::DType::BF16 || t == io::DType::F16 || t == io::DType::F64;
}

std::string torch_dtype_name(c10::ScalarType t) {
  if (t == c10::kFloat) return "float32";
  if (t == c10::kBFloat16) return "bfloat16";
  throw BadInput(std::string("checkpoints are saved as float32 or bfloat16, not ") + c10::toString(t));
}

std::string shape_string(at::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The file keys that may hold model parameter `name`, most specific first.
std::vector<std::string> candidate_keys(const std::string& name) {
  std::vector<std::string> base = {name};
  for (const std::string_view prefix : kEncoderPrefixes) {
    if (name.starts_with(prefix)) base.push_back(name.substr(prefix.size()));  // checkpoint of a bare encoder
  }
  if (base.size() == 1) {  // no prefix: a bare encoder, loading a task model's file
    for (const std::string_view prefix : kEncoderPrefixes) base.push_back(std::string(prefix) + name);
  }
  std::vector<std::string> keys = base;
  for (const auto& k : base) {
    if (k.ends_with("LayerNorm.weight")) keys.push_back(k.substr(0, k.size() - 6) + "gamma");
    if (k.ends_with("LayerNorm.bias")) keys.push_back(k.substr(0, k.size() - 4) + "beta");
  }
  for (const TiedHeadKeys& h : kTiedHeads) {
    if (is(h.embeddings, name)) keys.push_back(h.decoder_weight);
    if (is(h.bias, name) && h.decoder_bias) keys.push_back(h.decoder_bias);
    if (is(h.decoder_bias, name)) keys.push_back(h.bias);  // an untied model from a file with the one bias
  }
  return keys;
}

// A tied model loading a file with both the word embeddings and a decoder weight: they must be the
// same matrix, or the file is an untied model whose config.json does not say so.
void check_decoder_is_tied(const io::SafetensorsFile& file, const std::string& path, const char* embeddings,
                           const char* decoder) {
  const io::TensorView* e = file.find(embeddings);
  const io::TensorView* d = file.find(decoder);
  if (!e || !d) return;
  if (e->dtype == d->dtype && e->nbytes == d->nbytes && std::memcmp(e->data, d->data, e->nbytes) == 0) return;
  throw BadInput(path + ": '" + std::string(decoder) + "' differs from '" + embeddings +
                     "': the MLM decoder is untied, but the config has tie_word_embeddings true",
                 "set \"tie_word_embeddings\": false in the checkpoint's config.json");
}

}  // namespace

bool allow_non_finite_weights() {
  const char* v = std::getenv(kAllowNonFiniteEnv);
  return v && std::string(v) == "1";
}

void save_safetensors(const torch::nn::Module& module, const std::string& path, c10::ScalarType dtype) {
  torch_dtype_name(dtype);  // throws BadInput unless float32 / bfloat16
  io::SafetensorsWriter writer;
  writer.set_metadata("format", "pt");
  std::vector<std::pair<std::string, at::Tensor>> tensors;  // parameters, then buffers
  std::set<std::string> names;
  for (const auto& item : module.named_parameters(/*recurse=*/true)) tensors.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers(/*recurse=*/true)) tensors.emplace_back(item.key(), item.value());
  for (const auto& [name, t] : tensors) names.insert(name);
  std::unordered_set<const void*> seen;
  for (const auto& [name, p] : tensors) {
    if (!seen.insert(p.unsafeGetTensorImpl()).second) continue;     // tied: stored once
    at::Tensor cpu = p.detach().to(c10::kCPU, dtype).contiguous();  // add() copies it
    if (!at::isfinite(cpu).all().item<bool>()) {
      throw BadInput("refusing to write " + path + ": parameter '" + name + "' holds NaN or infinite values",
                     "the run diverged; resume from an earlier checkpoint with a lower --learning-rate");
    }
    std::vector<int64_t> shape(cpu.sizes().begin(), cpu.sizes().end());
    writer.add(name, to_io_dtype(dtype), shape, cpu.data_ptr(), cpu.nbytes());
    // An untied decoder's bias is "cls.predictions.decoder.bias" ("lm_head.decoder.bias"); transformers
    // 4 reads the head's bias from "cls.predictions.bias" ("lm_head.bias"), and transformers 5 expects
    // both in an untied model: write it under both names, unless the model holds the other one itself.
    for (const TiedHeadKeys& h : kTiedHeads) {
      if (is(h.decoder_bias, name) && !names.count(h.bias)) {
        writer.add(h.bias, to_io_dtype(dtype), shape, cpu.data_ptr(), cpu.nbytes());
      }
    }
  }
  writer.write(path);
}

namespace {

// Fills `param` (a parameter or buffer of the model named `name`) from the first of its candidate
// keys that `file` holds; the key used, or nullptr when the file has none of them.
const io::TensorView* load_tensor(const io::SafetensorsFile& file, const std::string& path, const std::string& name,
                                  at::Tensor& param) {
  const io::TensorView* t = nullptr;
  for (const auto& key : candidate_keys(name)) {
    if ((t = file.find(key))) break;
  }
  if (!t) return nullptr;
  if (!is_float(t->dtype)) {
    throw BadInput(path + ": tensor '" + t->name + "' has dtype " + io::dtype_name(t->dtype) +
                   ", expected a floating-point type for parameter '" + name + "'");
  }
  if (at::IntArrayRef(t->shape) != param.sizes()) {
    throw BadInput(path + ": tensor '" + t->name + "' has shape " + shape_string(t->shape) + " but the model's '" +
                       name + "' is " + shape_string(param.sizes()),
                   "the checkpoint was saved for a different model config (vocab_size, hidden_size, ...)");
  }
  // Copy out of the mapping (it may not be aligned for the element type), then convert.
  at::Tensor src = at::empty(t->shape, at::TensorOptions().dtype(to_scalar_type(t->dtype)));
  std::memcpy(src.data_ptr(), t->data, t->nbytes);
  if (!allow_non_finite_weights() && !at::isfinite(src).all().item<bool>()) {
    throw BadInput(path + ": tensor '" + t->name + "' holds NaN or infinite values",
                   "the run that wrote it diverged: use an earlier checkpoint (or set " +
                       std::string(kAllowNonFiniteEnv) + "=1 to load it anyway)");
  }
  param.copy_(src);
  return t;
}

}  // namespace

LoadReport load_safetensors(torch::nn::Module& module, const std::string& path, bool allow_missing) {
  io::SafetensorsFile file = io::SafetensorsFile::open(path);
  LoadReport report;
  std::set<std::string> used;
  at::NoGradGuard no_grad;
  for (auto& item : module.named_parameters(/*recurse=*/true)) {
    const io::TensorView* t = load_tensor(file, path, item.key(), item.value());
    if (!t) {
      report.missing.push_back(item.key());
      continue;
    }
    used.insert(t->name);
    report.loaded.push_back(item.key());
  }
  // Buffers: tensors a file holds that the model keeps without training them (RoBERTa's unused
  // lm_head.bias beside an untied decoder). One the file lacks keeps its value.
  for (auto& item : module.named_buffers(/*recurse=*/true)) {
    if (const io::TensorView* t = load_tensor(file, path, item.key(), item.value())) used.insert(t->name);
  }
  // Tied or derived entries that need no parameter of their own.
  auto loaded = [&](const std::string& n) {
    for (const auto& l : report.loaded)
      if (l == n) return true;
    return false;
  };
  auto derived = [&](const std::string& name) {
    for (const TiedHeadKeys& h : kTiedHeads) {
      if (is(h.decoder_weight, name) && loaded(h.embeddings)) {
        // A tied MLM model (a classifier has no decoder): the file's copy must be the same matrix.
        if (loaded(h.bias)) check_decoder_is_tied(file, path, h.embeddings, h.decoder_weight);
        return true;
      }
      if (is(h.decoder_bias, name) && loaded(h.bias)) return true;
      if (is(h.bias, name) && h.decoder_bias && loaded(h.decoder_bias)) return true;
    }
    return false;
  };
  for (const auto& t : file.tensors()) {
    if (used.count(t.name)) continue;
    if (t.name.ends_with("embeddings.position_ids")) continue;  // an old buffer, not a weight
    if (!derived(t.name)) report.unexpected.push_back(t.name);
  }
  if (!report.missing.empty() && !allow_missing) {
    std::string list;
    for (size_t i = 0; i < report.missing.size() && i < 8; ++i) list += (i ? ", " : "") + report.missing[i];
    if (report.missing.size() > 8) list += ", ... (" + std::to_string(report.missing.size()) + " in all)";
    throw BadInput(path + ": missing tensors for the model: " + list,
                   "is this a checkpoint of the same architecture? Its config.json must match the weights");
  }
  return report;
}

void write_model_files(const std::string& dir, const torch::nn::Module& model, BertConfig config,
                       c10::ScalarType dtype) {
  config.torch_dtype = torch_dtype_name(dtype);
  config.save((fs::path(dir) / "config.json").string());
  save_safetensors(model, (fs::path(dir) / "model.safetensors").string(), dtype);
}

void write_model_files(const std::string& dir, const MaskedLanguageModel& model, c10::ScalarType dtype) {
  BertConfig config = model.config();
  config.architectures = {config.masked_lm_class()};
  write_model_files(dir, model, config, dtype);
}

void copy_tokenizer_files(const std::string& tokenizer_dir, const std::string& dir) {
  // Only the tokenizer's own files: the source may be a whole model checkpoint, whose weights and
  // config must not overwrite the ones just written.
  std::error_code ec;
  for (const char* name :
       {"tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json"}) {
    const fs::path src = fs::path(tokenizer_dir) / name;
    if (fs::is_regular_file(src, ec)) write_file_atomic((fs::path(dir) / name).string(), read_file(src.string()));
  }
}

void save_pretrained(const std::string& dir, const torch::nn::Module& model, const BertConfig& config,
                     c10::ScalarType dtype, const std::string& tokenizer_dir, const std::string& model_card) {
  fs::path target = fs::path(dir);
  if (target.has_filename() == false) target = target.parent_path();  // "out/" -> "out"
  const std::string pid = std::to_string(::getpid());
  write_directory_atomic(
      target.string(), target.string() + ".tmp." + pid, target.string() + ".old." + pid,
      [&](const std::string& tmp) {
        write_model_files(tmp, model, config, dtype);
        if (!tokenizer_dir.empty()) copy_tokenizer_files(tokenizer_dir, tmp);
        if (!model_card.empty()) write_file_atomic((fs::path(tmp) / "README.md").string(), model_card);
      },
      "check free disk space");
}
void save_pretrained(const std::string& dir, const MaskedLanguageModel& model, c10::ScalarType dtype) {
  BertConfig config = model.config();
  config.architectures = {config.masked_lm_class()};
  save_pretrained(dir, model, config, dtype);
}

namespace {

// The transformers class that reads DIR whole: config.json's first architecture (e.g.
// "RobertaForMaskedLM"), else AutoModelForMaskedLM. Never throws: it only words a hint.
std::string checkpoint_class(const std::string& dir) {
  try {
    const nlohmann::json j = nlohmann::json::parse(read_file((fs::path(dir) / "config.json").string()));
    const auto it = j.find("architectures");
    if (it != j.end() && it->is_array() && !it->empty() && it->front().is_string()) {
      const std::string name = it->front().get<std::string>();
      bool word = !name.empty();
      for (const char ch : name) word = word && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
      if (word) return "transformers." + name;
    }
  } catch (const std::exception&) {  // no or unreadable config.json: the generic class
  }
  return "transformers.AutoModelForMaskedLM";
}

}  // namespace

std::string checkpoint_weights_path(const std::string& dir) {
  fs::path d(dir);
  std::error_code ec;
  if (!fs::is_directory(d, ec)) {
    throw BadInput("checkpoint directory " + dir + " does not exist",
                   "pass a directory with config.json and model.safetensors");
  }
  fs::path weights = d / "model.safetensors";
  if (!fs::exists(weights, ec)) {
    if (fs::exists(d / "model.safetensors.index.json", ec)) {
      throw BadInput(dir + ": sharded safetensors checkpoints are not supported",
                     "re-save it unsharded: model.save_pretrained(dir, max_shard_size=\"10GB\")");
    }
    if (fs::exists(d / "pytorch_model.bin", ec)) {
      throw BadInput((d / "pytorch_model.bin").string() +
                         " is the only weights file (no model.safetensors); bertpt reads safetensors only",
                     "convert it in Python: " + checkpoint_class(dir) +
                         ".from_pretrained(dir).save_pretrained(dir, safe_serialization=True)");
    }
    throw BadInput(dir + " has no model.safetensors", "is this a complete checkpoint directory?");
  }
  return weights.string();
}

std::shared_ptr<MaskedLanguageModel> load_pretrained(const std::string& dir, c10::Device device, LoadReport* report) {
  const std::string weights = checkpoint_weights_path(dir);
  BertConfig config = BertConfig::load((fs::path(dir) / "config.json").string());
  auto model = make_masked_lm(config, /*init_weights=*/false);  // every parameter comes from the file
  LoadReport r = load_safetensors(*model, weights);
  if (report) *report = std::move(r);
  model->to(device);
  model->eval();
  return model;
}

namespace {

// A task model of DIR's config with a head that the file may lack (the constructor initialises it;
// the file then overwrites what it has). Any missing tensor outside head_prefixes() is an error.
template <class Model>
std::shared_ptr<Model> load_with_head(const std::string& dir, int64_t num_labels, BertConfig* config_out,
                                      LoadReport* report,
                                      std::shared_ptr<Model> (*make)(const BertConfig&, int64_t, bool)) {
  const std::string weights = checkpoint_weights_path(dir);
  BertConfig config = BertConfig::load((fs::path(dir) / "config.json").string());
  auto model = make(config, num_labels, /*init_weights=*/true);
  LoadReport r = load_safetensors(*model, weights, /*allow_missing=*/true);
  for (const auto& name : r.missing) {
    bool in_head = false;
    for (const auto& prefix : model->head_prefixes()) in_head = in_head || name.rfind(prefix, 0) == 0;
    if (!in_head) {
      throw BadInput(weights + ": missing tensor '" + name + "' of the encoder",
                     "is this a checkpoint of the same architecture? Its config.json must match the weights");
    }
  }
  if (config_out) *config_out = config;
  if (report) *report = std::move(r);
  return model;
}

}  // namespace

std::shared_ptr<SequenceClassifier> load_sequence_classifier(const std::string& dir, int64_t num_labels,
                                                             BertConfig* config_out, LoadReport* report) {
  return load_with_head<SequenceClassifier>(dir, num_labels, config_out, report, &make_sequence_classifier);
}

std::shared_ptr<TokenClassifier> load_token_classifier(const std::string& dir, int64_t num_labels,
                                                       BertConfig* config_out, LoadReport* report) {
  return load_with_head<TokenClassifier>(dir, num_labels, config_out, report, &make_token_classifier);
}

}  // namespace bertpt::model
