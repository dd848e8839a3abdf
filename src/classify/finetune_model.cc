#include "classify/finetune_model.h"

#include <filesystem>

#include <ATen/ATen.h>

#include "common/error.h"
#include "model/checkpoint.h"
#include "tokenizer/hf_files.h"

namespace bertpt::classify {

namespace fs = std::filesystem;

// --tokenizer, else the model directory's.
std::string resolve_tokenizer_dir(const FinetuneOptions& o) {
  if (!o.tokenizer.empty()) return o.tokenizer;
  std::error_code ec;
  if (!fs::is_directory(o.model, ec)) {
    throw BadInput("--model " + o.model + " is not a checkpoint directory, so it has no tokenizer",
                   "for a randomly initialised model (a preset), pass --tokenizer DIR");
  }
  if (!tokenizer::has_tokenizer_files(o.model)) {
    throw BadInput("model directory " + o.model + " has no tokenizer (tokenizer.json or vocab.txt)",
                   "pass --tokenizer DIR with the tokenizer the model was pre-trained with");
  }
  return o.model;
}

// A checkpoint's encoder with a new head, or a random initialisation from a preset; checked against
// the tokenizer and --max-seq-len. `resuming`: the run's own checkpoint is loaded over it next, head
// included, so no head is new.
std::shared_ptr<model::Classifier> make_classifier(const FinetuneOptions& o, const tokenizer::Tokenizer& tok,
                                                   const std::string& tok_dir, const FinetuneTask& task,
                                                   model::BertConfig& config, bool resuming,
                                                   const std::function<void(const std::string&)>& message) {
  at::manual_seed(o.seed);
  std::error_code ec;
  std::shared_ptr<model::Classifier> classifier;
  const int64_t num_labels = task.num_labels();
  if (fs::is_directory(o.model, ec)) {
    model::LoadReport report;
    classifier = task.per_token() ? model::load_token_classifier(o.model, num_labels, &config, &report)
                                  : model::load_sequence_classifier(o.model, num_labels, &config, &report);
    if (!report.missing.empty() && !resuming) {
      message("initialised a new classification head (" + std::to_string(report.missing.size()) +
              " tensors not in the checkpoint, e.g. " + report.missing.front() + ")");
    }
  } else {
    config = model::resolve_model_config(o.model);
    // A preset's vocabulary and pad id are the tokenizer's (as train takes the dataset's): RoBERTa counts
    // its positions from the pad id, and the batches are padded with the tokenizer's.
    config.vocab_size = int64_t(tok.vocab_size());
    if (tok.special_ids().pad >= 0) config.pad_token_id = tok.special_ids().pad;
    classifier = task.per_token() ? model::make_token_classifier(config, num_labels)
                                  : model::make_sequence_classifier(config, num_labels);
    message("random initialisation from " + o.model + " (no pre-training)");
  }
  if (config.vocab_size != int64_t(tok.vocab_size())) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) +
                       " but the tokenizer " + tok_dir + " has " + std::to_string(tok.vocab_size()),
                   "fine-tune with the tokenizer the model was pre-trained with");
  }
  // RoBERTa's positions start at pad_token_id + 1: 514 of them hold 512 tokens.
  if (o.max_seq_len > config.max_sequence_length()) {
    throw BadInput("--max-seq-len " + std::to_string(o.max_seq_len) + " exceeds the " +
                   std::to_string(config.max_sequence_length()) + " tokens the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings) + " hold");
  }
  return classifier;
}

}  // namespace bertpt::classify
