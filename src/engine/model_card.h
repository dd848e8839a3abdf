// The README.md of every saved model directory, in the Hugging Face hub's model-card form: YAML front
// matter (library_name, pipeline_tag, tags; license and language left for the user, as comments),
// then what was trained, on what, how long, at what cost and with which results — all taken from the
// run's own records (its options, trainer state, metrics), so the card is always true. Plain C++.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/bert_config.h"

namespace bertpt::engine {

using CardRows = std::vector<std::pair<std::string, std::string>>;  // (what, value), shown as a table

struct ModelCard {
  std::string title;         // e.g. "bert-mini pre-trained with bertpt"
  std::string summary;       // one paragraph
  std::string pipeline_tag;  // "fill-mask" or "text-classification"
  std::vector<std::string> tags;
  model::BertConfig config;  // the architecture table
  int64_t parameters = 0;
  CardRows data, training, results;
  std::string example_input;  // the text of the usage snippet
};

std::string render_model_card(const ModelCard& card);

// What every training task's card has the same way: the architecture and parameter count, the tags
// (the model type, the pipeline, bertpt), and the rows that end its training table (precision and
// device × ranks, the software). A task adds its title, summary, data, training and result rows.
ModelCard training_card(const model::BertConfig& config, int64_t parameters, const std::string& pipeline_tag);
void add_run_rows(ModelCard& card, const std::string& precision, const std::string& device, int world,
                  const std::string& libtorch_version);

// Formatting for rows: 1234567 -> "1,234,567"; seconds -> "1 h 02 min"; "$12.34".
std::string card_count(double n);
std::string card_duration(double seconds);
std::string card_dollars(double usd);

}  // namespace bertpt::engine
