#include "mlm/model_source.h"

#include <filesystem>

#include "common/error.h"

namespace bertpt::mlm {

namespace fs = std::filesystem;

namespace {

// --init-from DIR's weights file; BadInput when DIR is not a safetensors checkpoint.
std::string init_from_weights(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw BadInput("--init-from " + dir + " does not exist", "pass a Hugging Face checkpoint directory");
  }
  const std::string weights = (fs::path(dir) / "model.safetensors").string();
  if (fs::exists(weights, ec)) return weights;
  if (fs::exists(fs::path(dir) / "pytorch_model.bin", ec)) {
    throw BadInput("--init-from " + dir +
                       " has only pytorch_model.bin: bertpt reads safetensors checkpoints, "
                       "and pytorch_model.bin (a Python pickle) is out of scope",
                   "convert it once in Python: AutoModelForMaskedLM.from_pretrained(dir).save_pretrained(dir, "
                   "safe_serialization=True)");
  }
  throw BadInput("--init-from " + dir + " has no model.safetensors", "pass a Hugging Face checkpoint directory");
}

}  // namespace

ModelSource resolve_model_source(const PretrainOptions& o, const std::string& resume_dir,
                                 const data::Dataset& longest) {
  ModelSource src;
  if (!resume_dir.empty()) {
    src.config = model::BertConfig::load((fs::path(resume_dir) / "config.json").string());
    src.weights = (fs::path(resume_dir) / "model.safetensors").string();
  } else if (!o.init_from.empty()) {
    src.weights = init_from_weights(o.init_from);
    src.config = model::BertConfig::load((fs::path(o.init_from) / "config.json").string());
  } else {
    src.config = model::resolve_model_config(o.model);
    // A preset's vocabulary and pad id are the dataset's; a config file of the user's must agree with it.
    if (model::is_preset_name(o.model)) {
      src.config.vocab_size = int64_t(longest.vocab_size());
      const int64_t pad = longest.manifest().special_ids.pad;
      if (pad >= 0) src.config.pad_token_id = pad;
    }
  }
  if (src.config.vocab_size != int64_t(longest.vocab_size())) {
    // Continued pre-training: the data must be the checkpoint's own tokenizer's.
    const std::string hint =
        !o.init_from.empty() && resume_dir.empty()
            ? "prepare the data with the checkpoint's tokenizer: bertpt prepare --tokenizer " + o.init_from
            : "train on data prepared with the model's tokenizer, or use a preset (its vocab_size follows the data)";
    throw BadInput("vocabulary mismatch: the model" +
                       (!o.init_from.empty() && resume_dir.empty() ? " (--init-from " + o.init_from + ")" : "") +
                       " has vocab_size " + std::to_string(src.config.vocab_size) + " but the dataset " + o.data +
                       " (its tokenizer) has " + std::to_string(longest.vocab_size()),
                   hint);
  }
  if (int64_t(longest.seq_len()) > src.config.max_sequence_length()) {
    throw BadInput("the dataset's seq_len " + std::to_string(longest.seq_len()) + " exceeds the model's " +
                       std::to_string(src.config.max_sequence_length()) + " positions (max_position_embeddings " +
                       std::to_string(src.config.max_position_embeddings) + ")",
                   "prepare with a shorter --seq-len, or use a model config with more positions");
  }
  src.config.torch_dtype = "float32";
  src.config.architectures = {src.config.masked_lm_class()};
  return src;
}

}  // namespace bertpt::mlm
