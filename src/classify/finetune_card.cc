#include "classify/finetune_card.h"

#include "engine/model_card.h"

namespace bertpt::classify {

namespace {

// A metric of a report: its digits, or "n/a" for null (a correlation of constant predictions).
std::string metric_text(const nlohmann::json& v) { return v.is_number() ? std::to_string(v.get<double>()) : "n/a"; }

engine::CardRows result_rows(const FinetuneCardFacts& f, const nlohmann::json& report) {
  engine::CardRows rows;
  const TaskCard& task = f.task;
  if (f.best_epoch > 0) rows.push_back({"best epoch", std::to_string(f.best_epoch)});
  for (const std::string split : {"valid", "test"}) {
    if (report.is_object() && report.contains(split + "_" + task.first)) {
      rows.push_back({split + task.metric_names, metric_text(report[split + "_" + task.first]) + " / " +
                                                     metric_text(report[split + "_" + task.second])});
    }
  }
  if (rows.size() <= 1 && !f.history.empty() && f.history.back().contains("valid_" + task.first)) {
    rows.push_back({"valid " + task.first + " (epoch " + std::to_string(f.history.size()) + ")",
                    metric_text(f.history.back()["valid_" + task.first])});
  }
  return rows;
}

}  // namespace

std::string finetune_model_card(const FinetuneOptions& o, const FinetuneCardFacts& f, const nlohmann::json& report) {
  const std::string auto_class = f.per_token ? "AutoModelForTokenClassification" : "AutoModelForSequenceClassification";
  engine::ModelCard card = engine::training_card(f.config, f.parameters, f.task.pipeline_tag);
  card.title = f.task.title + " fine-tuned with bertpt from " + o.model;
  card.summary = "A " + f.config.architectures.front() + " model fine-tuned by bertpt (" + std::string(BERTPT_VERSION) +
                 ") from " + o.model + " on " + o.train + ". Labels: " + f.config.extra.at("id2label") +
                 ". It loads with `" + auto_class + ".from_pretrained(PATH)`.";
  card.data = {{"training examples", engine::card_count(double(f.train_examples)) + " (" + o.train + ")"},
               {"labels", std::to_string(f.num_labels)},
               {"max sequence length", std::to_string(o.max_seq_len) + " tokens"}};
  if (f.valid_examples > 0) card.data.push_back({"validation examples", engine::card_count(double(f.valid_examples))});
  if (f.test_examples > 0) {
    card.data.push_back({o.test_name + " examples", engine::card_count(double(f.test_examples))});
  }
  card.training = {{"epochs", std::to_string(f.history.size()) + " of " + std::to_string(o.epochs)},
                   {"steps", engine::card_count(double(f.step))},
                   {"global batch", std::to_string(f.global_batch)},
                   {"optimizer", "AdamW, peak lr " + std::to_string(o.learning_rate) +
                                     ", linear schedule, warmup ratio " + std::to_string(o.warmup_ratio) +
                                     ", weight decay " + std::to_string(o.weight_decay)},
                   {"seed", std::to_string(o.seed)}};
  engine::add_run_rows(card, o.precision, f.device, f.world, f.libtorch_version);
  card.results = result_rows(f, report);
  card.example_input = f.task.example_input;
  return engine::render_model_card(card);
}

}  // namespace bertpt::classify
