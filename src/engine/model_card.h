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

// Formatting for rows: 1234567 -> "1,234,567"; seconds -> "1 h 02 min"; "$12.34".
std::string card_count(double n);
std::string card_duration(double seconds);
std::string card_dollars(double usd);

}  // namespace bertpt::engine
