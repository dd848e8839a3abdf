#include "mlm/fill_mask.h"

#include <filesystem>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "model/checkpoint.h"
#include "tokenizer/decoders/wordpiece.h"
#include "tokenizer/hf_files.h"

namespace bertpt::mlm {

namespace fs = std::filesystem;

struct FillMasker::Impl {
  std::shared_ptr<model::MaskedLanguageModel> model;
  std::unique_ptr<tokenizer::Tokenizer> tok;
  bool clean_up = true;  // tokenizer_config.json's clean_up_tokenization_spaces
  at::Device device{at::kCPU};

  // What transformers' tokenizer.decode() returns: the tokenizer's decoder, then the Python-side
  // clean-up of the whole string.
  std::string decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const {
    std::string text = tok->decode(ids, skip_special_tokens);
    return clean_up ? tokenizer::clean_up_tokenization(std::move(text)) : text;
  }
};

FillMasker::FillMasker(const std::string& model_dir, const std::string& tokenizer_dir, const std::string& device)
    : impl_(std::make_unique<Impl>()) {
  impl_->device = at::Device(device);
  const std::string tdir = tokenizer_dir.empty() ? model_dir : tokenizer_dir;
  std::error_code ec;
  if (fs::is_directory(model_dir, ec) && !fs::exists(fs::path(tdir) / "tokenizer.json", ec) &&
      !fs::exists(fs::path(tdir) / "vocab.txt", ec)) {
    throw BadInput(tdir + " has no tokenizer files (tokenizer.json or vocab.txt)",
                   "pass --tokenizer DIR (e.g. the dataset's tokenizer/ directory)");
  }
  impl_->model = model::load_pretrained(model_dir, impl_->device);
  impl_->tok = std::make_unique<tokenizer::Tokenizer>(tokenizer::load_tokenizer(tdir));
  impl_->clean_up = tokenizer::clean_up_tokenization_spaces(tdir, impl_->tok->model_type());
  if (int64_t(impl_->tok->vocab_size()) > impl_->model->config().vocab_size) {
    throw BadInput("vocabulary mismatch: the tokenizer in " + tdir + " has " +
                       std::to_string(impl_->tok->vocab_size()) + " tokens but the model has vocab_size " +
                       std::to_string(impl_->model->config().vocab_size),
                   "use the tokenizer the model was trained with");
  }
  if (impl_->tok->special_ids().mask < 0) throw BadInput("the tokenizer in " + tdir + " has no [MASK] token");
}

FillMasker::~FillMasker() = default;

FillMaskResult FillMasker::run(const std::string& text, int top_k, bool with_logits) const {
  const tokenizer::Tokenizer& tok = *impl_->tok;
  const int64_t mask_id = tok.special_ids().mask;
  std::vector<uint32_t> ids;
  tok.encode(text, ids);
  FillMaskResult r;
  r.text = text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (int64_t(ids[i]) == mask_id) r.mask_positions.push_back(int64_t(i));
  }
  if (r.mask_positions.empty()) {
    throw BadInput("no " + std::string(tok.id_to_token(uint32_t(mask_id))) + " token in \"" + text + "\"",
                   "write the word to predict as " + std::string(tok.id_to_token(uint32_t(mask_id))));
  }
  const auto& config = impl_->model->config();
  if (int64_t(ids.size()) > config.max_sequence_length()) {
    throw BadInput("the text has " + std::to_string(ids.size()) + " tokens, more than the model's " +
                   std::to_string(config.max_sequence_length()) + " positions");
  }
  at::NoGradGuard no_grad;
  std::vector<int64_t> ids64(ids.begin(), ids.end());
  at::Tensor input = at::tensor(ids64, at::kLong).unsqueeze(0).to(impl_->device);  // [1, T]
  at::Tensor logits = impl_->model->logits(input);                                 // [1, T, V]
  r.vocab_size = config.vocab_size;
  if (with_logits) {
    at::Tensor all = logits[0].to(at::kFloat).cpu().contiguous();  // [T, V]
    r.logits.assign(all.data_ptr<float>(), all.data_ptr<float>() + all.numel());
  }
  const int k = std::max(1, std::min<int>(top_k, int(config.vocab_size)));
  // As the fill-mask pipeline: with one mask the sequence is plain text; with several, the special
  // tokens stay so the other [MASK]s remain visible.
  const bool skip_special = r.mask_positions.size() == 1;
  for (int64_t pos : r.mask_positions) {
    at::Tensor probs = logits[0][pos].to(at::kFloat).softmax(-1);  // [V]
    auto [values, indices] = probs.topk(k);
    values = values.cpu();
    indices = indices.cpu();
    std::vector<FillMaskPrediction> preds;
    for (int i = 0; i < k; ++i) {
      FillMaskPrediction p;
      p.token = indices[i].item<int64_t>();
      p.score = values[i].item<double>();
      p.token_str = impl_->decode({uint32_t(p.token)}, /*skip_special_tokens=*/false);
      std::vector<uint32_t> filled = ids;
      filled[size_t(pos)] = uint32_t(p.token);
      p.sequence = impl_->decode(filled, skip_special);
      preds.push_back(std::move(p));
    }
    r.predictions.push_back(std::move(preds));
  }
  return r;
}

}  // namespace bertpt::mlm
