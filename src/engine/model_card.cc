#include "engine/model_card.h"

#include <cmath>
#include <cstdio>

#include "common/progress.h"

namespace bertpt::engine {

namespace {

// A Markdown table cell: '|' would end the cell, a newline the row.
std::string cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

void table(std::string& md, const std::string& heading, const CardRows& rows) {
  if (rows.empty()) return;
  md += "\n## " + heading + "\n\n| | |\n|---|---|\n";
  for (const auto& [what, value] : rows) md += "| " + cell(what) + " | " + cell(value) + " |\n";
}

// A Python string literal for the usage snippet.
std::string py_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c == '\n' ? ' ' : c;
  }
  return o + "\"";
}

std::string usage(const ModelCard& card) {
  const bool mlm = card.pipeline_tag == "fill-mask";
  std::string s = "\n## How to use\n\n```python\nfrom transformers import pipeline\n\n";
  s += std::string(mlm ? "fill_mask" : "classify") + " = pipeline(\"" + card.pipeline_tag + "\", model=\"PATH\")\n";
  s += std::string(mlm ? "fill_mask" : "classify") + "(" + py_string(card.example_input) + ")\n```\n\n";
  s += "or with bertpt: `bertpt " + std::string(mlm ? "fill-mask" : "predict") + " --model PATH` " +
       (mlm ? "\"TEXT with [MASK]\"" : "--input FILE") + ".\n";
  return s;
}

}  // namespace

std::string card_count(double n) { return Progress::format_count(uint64_t(std::llround(std::max(0.0, n)))); }

std::string card_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  char b[48];
  if (s < 60) std::snprintf(b, sizeof b, "%lld s", s);
  else if (s < 3600) std::snprintf(b, sizeof b, "%lld min %02lld s", s / 60, s % 60);
  else std::snprintf(b, sizeof b, "%lld h %02lld min", s / 3600, s / 60 % 60);
  return b;
}

std::string card_dollars(double usd) {
  char b[32];
  std::snprintf(b, sizeof b, "$%.2f", usd);
  return b;
}

ModelCard training_card(const model::BertConfig& config, int64_t parameters, const std::string& pipeline_tag) {
  ModelCard card;
  card.pipeline_tag = pipeline_tag;
  card.tags = {config.model_type, pipeline_tag, "bertpt"};
  card.config = config;
  card.parameters = parameters;
  return card;
}

void add_run_rows(ModelCard& card, const std::string& precision, const std::string& device, int world,
                  const std::string& libtorch_version) {
  card.training.push_back({"precision / device", precision + " / " + device + " × " + std::to_string(world)});
  card.training.push_back({"software", std::string("bertpt ") + BERTPT_VERSION + ", LibTorch " + libtorch_version});
}

std::string render_model_card(const ModelCard& card) {
  std::string md = "---\nlibrary_name: transformers\npipeline_tag: " + card.pipeline_tag + "\ntags:\n";
  for (const auto& t : card.tags) md += "- " + t + "\n";
  md += "# license: choose one, e.g. apache-2.0 (bertpt does not know the terms of your corpus)\n";
  md += "# language: the corpus language(s), e.g. en\n---\n\n";
  md += "# " + card.title + "\n\n" + card.summary + "\n";
  const model::BertConfig& c = card.config;
  table(md, "Model",
        {{"architecture", c.architectures.empty() ? "BERT" : c.architectures.front()},
         {"layers / hidden / heads / intermediate",
          std::to_string(c.num_hidden_layers) + " / " + std::to_string(c.hidden_size) + " / " +
              std::to_string(c.num_attention_heads) + " / " + std::to_string(c.intermediate_size)},
         {"parameters", card_count(double(card.parameters))},
         {"vocabulary", card_count(double(c.vocab_size)) + " WordPiece tokens"},
         {"max positions", std::to_string(c.max_position_embeddings)}});
  table(md, "Training data", card.data);
  table(md, "Training", card.training);
  table(md, "Results", card.results);
  md += usage(card);
  md += "\nThis card was written by bertpt from the run's own records when the model was saved.\n";
  return md;
}

}  // namespace bertpt::engine
