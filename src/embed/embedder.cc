#include "embed/embedder.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "model/architecture.h"
#include "model/checkpoint.h"
#include "tokenizer/hf_files.h"

namespace bertpt::embed {

namespace fs = std::filesystem;

Pooling parse_pooling(const std::string& name) {
  if (name == "mean") return Pooling::Mean;
  if (name == "cls") return Pooling::Cls;
  throw BadInput("--pooling must be mean or cls, got '" + name + "'");
}

const char* pooling_name(Pooling pooling) { return pooling == Pooling::Mean ? "mean" : "cls"; }

namespace {

// A JSON file of the model directory, or null when absent.
nlohmann::json read_json_if_present(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  return read_json_file(path.string(), "restore the sentence-transformers files from the model's source");
}

// sentence-transformers' module list: the Pooling module's directory and whether a Normalize follows.
struct SentenceTransformerModules {
  std::string pooling_dir;
  bool normalize = false;
};

SentenceTransformerModules read_modules(const fs::path& dir) {
  SentenceTransformerModules m;
  const nlohmann::json modules = read_json_if_present(dir / "modules.json");
  if (modules.is_null()) return m;
  const JsonValue list(modules, (dir / "modules.json").string(), "");
  for (size_t i = 0; i < list.array().size(); ++i) {
    const JsonFields entry = list.element(i).fields();
    const std::string type = entry.str("type");
    if (type.ends_with(".Pooling")) m.pooling_dir = entry.str("path");
    if (type.ends_with(".Normalize")) m.normalize = true;
  }
  return m;
}

// The pooling mode of a sentence-transformers Pooling config — 6.x writes "pooling_mode": "cls",
// 5.x a boolean per mode — ; BadInput for the modes not implemented.
Pooling pooling_of(const JsonFields& config) {
  const char* hint = "pass --pooling mean or --pooling cls";
  if (const std::optional<JsonValue> mode = config.optional("pooling_mode")) {
    if (mode->json() == "cls") return Pooling::Cls;
    if (mode->json() == "mean") return Pooling::Mean;
    mode->fail("is " + mode->json().dump() + ", which is not supported (bertpt pools mean or cls)", hint);
  }
  if (config.boolean_or("pooling_mode_cls_token", false)) return Pooling::Cls;
  for (const char* unsupported : {"pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens"}) {
    if (config.boolean_or(unsupported, false)) {
      config.value(unsupported).fail("is true: that pooling mode is not supported (bertpt pools mean or cls)", hint);
    }
  }
  return Pooling::Mean;
}

// sentence_bert_config.json's max_seq_length (sentence-transformers 5.x), else the tokenizer's
// model_max_length, where 6.x saves it; 0 when neither says.
int64_t sentence_transformers_max_len(const fs::path& dir) {
  const nlohmann::json st = read_json_if_present(dir / "sentence_bert_config.json");
  if (st.is_null()) return 0;  // not a sentence-transformers directory
  const JsonFields f(st, (dir / "sentence_bert_config.json").string());
  if (const std::optional<JsonValue> v = f.optional("max_seq_length")) return v->i64();
  const nlohmann::json tc = read_json_if_present(dir / "tokenizer_config.json");
  if (tc.is_null()) return 0;
  const std::optional<JsonValue> v =
      JsonFields(tc, (dir / "tokenizer_config.json").string()).optional("model_max_length");
  if (!v || !v->json().is_number_integer()) return 0;  // transformers writes 1e30 for "no limit"
  if (v->json().is_number_unsigned()) return int64_t(std::min<uint64_t>(v->u64(), uint64_t(INT64_MAX)));
  return std::max<int64_t>(0, v->i64());
}

}  // namespace

EmbedSettings resolve_settings(const EmbedOptions& o, int64_t hidden_size, int64_t max_position_embeddings) {
  const fs::path dir(o.model);
  const SentenceTransformerModules modules = read_modules(dir);
  EmbedSettings s;
  s.dim = hidden_size;
  s.normalize = o.normalize.value_or(modules.normalize);
  s.pooling = Pooling::Mean;
  if (o.pooling) {
    s.pooling = *o.pooling;
  } else if (!modules.pooling_dir.empty()) {
    const fs::path path = dir / modules.pooling_dir / "config.json";
    const nlohmann::json config = read_json_if_present(path);
    if (!config.is_null()) s.pooling = pooling_of(JsonFields(config, path.string()));
  }
  // The longest input: what the sentence-transformers files say, capped at max_position_embeddings,
  // as sentence-transformers caps it.
  s.max_seq_len = max_position_embeddings;
  if (const int64_t st = sentence_transformers_max_len(dir); st > 0) s.max_seq_len = std::min(s.max_seq_len, st);
  if (o.max_seq_len > 0) s.max_seq_len = o.max_seq_len;
  if (s.max_seq_len > max_position_embeddings) {
    throw BadInput("--max-seq-len " + std::to_string(s.max_seq_len) + " exceeds the model's max_position_embeddings (" +
                   std::to_string(max_position_embeddings) + ")");
  }
  if (s.max_seq_len < 3) throw BadInput("--max-seq-len must be at least 3 ([CLS], a token, [SEP])");
  return s;
}

struct Embedder::Impl {
  model::Encoder encoder;
  std::unique_ptr<tokenizer::Tokenizer> tok;
  EmbedSettings settings;
  int64_t batch_size = 32;
  int64_t pad_id = 0;  // the id padding is filled with (RoBERTa counts positions from it)
  at::Device device{at::kCPU};

  std::vector<uint32_t> encode(const std::string& text) const;
  at::Tensor embed_batch(const std::vector<std::vector<uint32_t>>& ids);  // [b, H] fp32 CPU
};

Embedder::Embedder(const EmbedOptions& o) : impl_(std::make_unique<Impl>()) {
  if (o.batch_size <= 0) throw BadInput("--batch-size must be > 0");
  impl_->batch_size = o.batch_size;
  impl_->device = at::Device(o.device);
  const std::string weights = model::checkpoint_weights_path(o.model);
  const model::BertConfig config = model::BertConfig::load((fs::path(o.model) / "config.json").string());
  const std::string tdir = o.tokenizer.empty() ? o.model : o.tokenizer;
  if (!tokenizer::has_tokenizer_files(tdir)) {
    throw BadInput(tdir + " has no tokenizer files (tokenizer.json or vocab.txt)", "pass --tokenizer DIR");
  }
  impl_->tok = std::make_unique<tokenizer::Tokenizer>(tokenizer::load_tokenizer(tdir));
  if (int64_t(impl_->tok->vocab_size()) > config.vocab_size) {
    throw BadInput(tdir + ": the tokenizer has " + std::to_string(impl_->tok->vocab_size()) +
                   " tokens but the model's vocab_size is " + std::to_string(config.vocab_size));
  }
  // The encoder alone; a task model's heads (cls.*, classifier.*, bert.pooler.*, head.*) are not used.
  impl_->encoder = model::make_encoder(config);
  impl_->pad_id = std::max<int64_t>(config.pad_token_id, 0);
  model::load_safetensors(*impl_->encoder.module, weights);
  impl_->encoder.module->to(impl_->device);
  impl_->encoder.module->eval();
  impl_->settings = resolve_settings(o, config.hidden_size, config.max_sequence_length());
}

Embedder::~Embedder() = default;

const EmbedSettings& Embedder::settings() const { return impl_->settings; }

// tokenizer(text, truncation=True, max_length=max_seq_len): the first tokens, then the specials.
std::vector<uint32_t> Embedder::Impl::encode(const std::string& text) const {
  const size_t budget = size_t(settings.max_seq_len) - tok->num_special_tokens_to_add(false);
  std::vector<uint32_t> raw, ids;
  tok->encode(text, raw, /*add_special_tokens=*/false);
  if (raw.size() > budget) raw.resize(budget);
  tok->post_process(raw, nullptr, ids, nullptr);
  return ids;
}

at::Tensor Embedder::Impl::embed_batch(const std::vector<std::vector<uint32_t>>& ids) {
  const int64_t b = int64_t(ids.size());
  int64_t t = 0;
  for (const auto& x : ids) t = std::max<int64_t>(t, int64_t(x.size()));
  at::Tensor input = at::full({b, t}, pad_id, at::kLong), mask = at::zeros({b, t}, at::kLong);
  auto in = input.accessor<int64_t, 2>();
  auto ma = mask.accessor<int64_t, 2>();
  for (int64_t i = 0; i < b; ++i) {
    for (size_t j = 0; j < ids[size_t(i)].size(); ++j) in[i][int64_t(j)] = ids[size_t(i)][j], ma[i][int64_t(j)] = 1;
  }
  input = input.to(device), mask = mask.to(device);
  const at::Tensor hidden = encoder.forward(input, mask).to(at::kFloat);  // [b, t, H]
  at::Tensor pooled;
  if (settings.pooling == Pooling::Cls) {
    pooled = hidden.select(1, 0);
  } else {  // sentence-transformers: sum over attended tokens / max(count, 1e-9)
    const at::Tensor m = mask.unsqueeze(-1).to(at::kFloat);
    pooled = (hidden * m).sum(1) / m.sum(1).clamp_min(1e-9);
  }
  if (settings.normalize) pooled = pooled / pooled.norm(2, 1, /*keepdim=*/true).clamp_min(1e-12);
  return pooled.to(at::kCPU).contiguous();
}

std::vector<float> Embedder::embed(const std::vector<std::string>& texts,
                                   const std::function<void(size_t)>& on_batch) const {
  at::NoGradGuard no_grad;
  std::vector<std::vector<uint32_t>> ids(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) ids[i] = impl_->encode(texts[i]);
  // Longest first, so each batch pads little (sentence-transformers sorts the same way).
  std::vector<size_t> order(texts.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a].size() > ids[b].size(); });
  const int64_t dim = impl_->settings.dim;
  std::vector<float> out(texts.size() * size_t(dim));
  for (size_t begin = 0; begin < order.size(); begin += size_t(impl_->batch_size)) {
    const size_t end = std::min(order.size(), begin + size_t(impl_->batch_size));
    std::vector<std::vector<uint32_t>> batch;
    for (size_t k = begin; k < end; ++k) batch.push_back(ids[order[k]]);
    const at::Tensor v = impl_->embed_batch(batch);
    for (size_t k = begin; k < end; ++k) {
      std::copy_n(v[int64_t(k - begin)].data_ptr<float>(), dim, out.begin() + int64_t(order[k]) * dim);
    }
    if (on_batch) on_batch(end);
  }
  return out;
}

}  // namespace bertpt::embed
