// `bertpt predict`: batch scoring with a fine-tuned *ForSequenceClassification directory (Bert,
// ModernBert, Roberta, XLMRoberta; ours or transformers'; its config.json's id2label names the
// classes). One JSON line per input example, in input order, with the keys of transformers'
// text-classification pipeline plus all class probabilities:
//   {"label": "spam", "score": 0.981, "probabilities": {"ham": 0.019, "spam": 0.981}}
// When every input record has a known label, the accuracy / macro-F1 report is computed too.
// A regression model (config.json problem_type "regression", or one label) writes
//   {"label": "LABEL_0", "score": 3.71}
// and, when every record has a numeric label, Pearson / Spearman / MSE.
// A token classifier (architectures *ForTokenClassification: `bertpt finetune --task
// token-classification`) reads CoNLL sentences (classify/tagged_words.h; a tag column, when present,
// is scored) and writes one line per sentence: each word's tag and probability (null for a word cut
// off by --max-seq-len) and the entities they form, as the token-classification pipeline's "simple"
// aggregation groups them (the score is the mean of the words'):
//   {"words": ["APC", "mutations", ...], "labels": ["B-Disease", "O", ...], "scores": [0.97, ...],
//    "entities": [{"entity_group": "Disease", "word": "colorectal cancer", "start": 3, "end": 5,
//                  "score": 0.93}]}      (start/end: word positions, end exclusive)
// and, when every word has a tag, entity precision / recall / F1 (seqeval) and word accuracy.
// No LibTorch in this header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "classify/entity_metrics.h"
#include "classify/labeled_data.h"
#include "classify/metrics.h"
#include "classify/regression_metrics.h"

namespace bertpt::classify {

struct PredictOptions {
  std::string model;                  // fine-tuned classifier directory
  std::string tokenizer;              // default: the model directory
  std::string input;                  // JSONL / CSV / TSV
  std::string output = "-";           // JSONL file (written atomically) or "-" for stdout
  classify::LabeledDataOptions data;  // label_field: read when present, never required
  int64_t max_seq_len = 0;            // 0: the model's longest input (max_sequence_length())
  int64_t batch_size = 64;
  std::string precision = "fp32";
  std::string device = "cpu";
  int threads = 0;
};

struct PredictSummary {
  int64_t examples = 0;
  int64_t truncated = 0;
  std::optional<classify::ClassificationMetrics> metrics;  // when the input is labelled
  std::optional<classify::RegressionMetrics> regression;   // a regression model, labelled input
  std::optional<classify::EntityMetrics> entities;         // a token classifier, tagged input
  double seconds = 0;
};

PredictSummary run_predict(const PredictOptions& options);

}  // namespace bertpt::classify
