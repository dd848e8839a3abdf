// What a fine-tuning task brings to the epoch loop of classify/finetune.cc. The loop owns the run
// (engine/training_run.h), the epochs and their example order, the split of each global batch into
// ranks and micro-batches, the per-epoch evaluation, best/, checkpoints and resume, results.json and
// the model card's frame. A task owns its examples and labels, what the head is, the loss, and its
// metrics:
//   sequence_task.h  one label (or a number: regression) per text or text pair (GLUE, SciCite)
//   token_task.h     one tag per word of CoNLL sentences (NER)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "classify/classify.h"
#include "classify/finetune_options.h"
#include "engine/collectives.h"
#include "engine/step_runner.h"
#include "model/bert_config.h"
#include "model/masked_lm.h"
#include "tokenizer/tokenizer.h"

namespace bertpt::classify {

// A labelled split evaluated with the model as it is.
struct SplitScores {
  nlohmann::json metrics;   // every metric: results.json's "valid" / "test" object
  nlohmann::json headline;  // the main ones, flat: valid_KEY in epoch records, test_KEY in results.json
  nlohmann::json baseline;  // flat keys for results.json only (e.g. the majority class's accuracy)
  double score = 0;         // --metric-for-best's value (NaN: undefined, e.g. a constant prediction)
  std::string table;        // for people: the CLI prints it after the run
};

// A training micro-batch: padded inputs and the labels the loss compares against.
struct TrainingBatch {
  ClassifierBatch inputs;
  at::Tensor labels;  // [b] class ids (int64) or targets (fp32), or [b, t] token labels (-100: none)
};

// The parts of the model card that depend on the task (engine/model_card.h).
struct TaskCard {
  std::string title;          // "Text classifier"
  std::string pipeline_tag;   // transformers' pipeline name: "text-classification", ...
  std::string example_input;  // the widget's example
  std::string first, second;  // the two headline metrics shown for valid and test
  std::string metric_names;   // how the card names them: " accuracy / macro-F1"
};

class FinetuneTask {
 public:
  virtual ~FinetuneTask() = default;

  // ---- the data (read and encoded by the constructor)
  virtual int64_t train_size() const = 0;
  // The examples of "valid" or "test"; 0 when that split was not given.
  virtual int64_t split_size(const std::string& split) const = 0;
  virtual std::string data_summary() const = 0;  // a line for the log

  // ---- the model
  virtual int64_t num_labels() const = 0;
  virtual bool per_token() const = 0;  // a token classifier (model/masked_lm.h Classifier)
  // What config.json says of the task: architectures, id2label / label2id, problem_type.
  virtual void describe(model::BertConfig& config) const = 0;

  // ---- training
  // What the mean loss of a step is over, given its training examples (examples, or labelled tokens).
  virtual double loss_items(const std::vector<size_t>& examples) const = 0;
  virtual TrainingBatch training_batch(const std::vector<size_t>& examples, int64_t pad_id) const = 0;
  // The loss summed over the batch's items and the items predicted right, from the model's logits.
  virtual engine::MicroOutput loss(const at::Tensor& logits, const at::Tensor& labels) const = 0;

  // ---- evaluation and the report
  // --metric-for-best for this task ("auto" resolved); BadInput for a metric it does not have.
  virtual std::string metric_for_best(const std::string& option) const = 0;
  // Sharded over the ranks of `coll`; every rank gets the whole split's scores.
  virtual SplitScores evaluate(model::Classifier& model, const std::string& split, const std::string& metric,
                               const ClassifyOptions& options, engine::Collectives& coll) const = 0;
  // The task's keys of results.json (problem type, labels, counts, truncation).
  virtual void add_to_report(nlohmann::json& report) const = 0;
  virtual TaskCard card() const = 0;
};

// The examples of a split of n that rank r evaluates: r, r + world, ...
std::vector<size_t> eval_shard(size_t n, const engine::Collectives& coll);

// The order of the training examples in `epoch` (1-based): a deterministic shuffle, the same on every
// rank and platform, so a resumed run sees the examples of the uninterrupted one.
std::vector<size_t> epoch_order(size_t n, uint64_t seed, int64_t epoch);
// The dropout stream of micro-step `micro` of step `step` on `rank` (engine/step_runner.h re-seeds with it).
uint64_t finetune_dropout_seed(uint64_t seed, int64_t step, int rank, int64_t micro);

// The task --task (or --format) names, with its examples read and encoded.
std::unique_ptr<FinetuneTask> make_finetune_task(const FinetuneOptions& options, const tokenizer::Tokenizer& tok);

}  // namespace bertpt::classify
