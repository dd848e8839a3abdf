#include "mlm/pretrain_card.h"

#include <cmath>

#include "engine/model_card.h"
#include "model/torch_compat.h"
#include "tokenizer/hf_files.h"

namespace bertpt::mlm {

namespace {

// "A BERT", "A ModernBERT", "A RoBERTa", "An XLM-RoBERTa": the model card's name of the family.
std::string family_article(const model::BertConfig& c) {
  if (c.is_modernbert()) return "A ModernBERT";
  if (c.model_type == "roberta") return "A RoBERTa";
  if (c.model_type == "xlm-roberta") return "An XLM-RoBERTa";
  return "A BERT";
}

bool has_number(const nlohmann::json& j, const char* k) { return j.is_object() && j.contains(k) && j[k].is_number(); }

engine::CardRows data_rows(const PretrainOptions& o, const PretrainCardFacts& f) {
  const io::Manifest& m = f.dataset->manifest();
  std::string sources;
  for (const auto& src : m.sources) sources += (sources.empty() ? "" : ", ") + src.name;
  engine::CardRows rows = {
      {"dataset", o.data + (sources.empty() ? "" : " (from " + sources + ")")},
      {"training sequences", engine::card_count(double(m.train.sequences)) + " × " + std::to_string(m.seq_len) +
                                 " tokens (" + m.packing + " packing)"},
      {"training tokens", engine::card_count(double(m.train.tokens))},
      {"documents", engine::card_count(double(m.train.documents))},
      {"tokenizer", std::string(tokenizer::load_tokenizer(f.dataset->tokenizer_dir()).model_type()) + ", " +
                        engine::card_count(double(m.vocab_size)) + " tokens, vocab sha256 " +
                        m.tokenizer.vocab_sha256.substr(0, 12)}};
  if (m.valid.sequences > 0) rows.push_back({"held-out sequences", engine::card_count(double(m.valid.sequences))});
  for (const nlohmann::json& p : f.phases) {
    rows.push_back({"phase " + std::to_string(p["phase"].get<int>()),
                    std::to_string(p["seq_len"].get<int>()) + " tokens, steps " +
                        std::to_string(p["first_step"].get<int64_t>()) + "-" +
                        std::to_string(p["last_step"].get<int64_t>()) + ", global batch " +
                        std::to_string(p["global_batch"].get<int64_t>()) + ", " +
                        engine::card_count(double(p["train_sequences"].get<uint64_t>())) + " sequences"});
  }
  return rows;
}

engine::CardRows training_rows(const PretrainOptions& o, const PretrainCardFacts& f) {
  const io::Manifest& m = f.dataset->manifest();
  engine::CardRows rows = {
      {"steps", engine::card_count(double(f.step)) + " of " + engine::card_count(double(o.max_steps))},
      {"global batch", std::to_string(f.global_batch) + " sequences (" + std::to_string(f.per_device_batch) +
                           " per device × " + std::to_string(f.grad_accum) + " accumulation × " +
                           std::to_string(f.world) + " ranks)"},
      {"sequences / tokens seen", engine::card_count(f.sequences_seen) + " / " + engine::card_count(f.tokens_seen)},
      {"epochs", std::to_string(m.train.sequences ? f.sequences_seen / double(m.train.sequences) : 0.0)},
      {"optimizer", std::string(o.optim == "lamb" ? "LAMB" : "AdamW") + ", peak lr " + std::to_string(o.learning_rate) +
                        ", " + o.lr_scheduler + " schedule, " + std::to_string(o.warmup_steps) +
                        " warmup steps, weight decay " + std::to_string(o.weight_decay)},
      {"masking",
       std::to_string(o.mlm_probability) +
           (o.whole_word_mask ? " of words, whole (all [MASK])" : " of tokens (80% [MASK], 10% random, 10% kept)")},
      {"training time", engine::card_duration(f.elapsed_sec)}};
  if (f.cost_usd >= 0) rows.push_back({"cost", engine::card_dollars(f.cost_usd)});
  return rows;
}

engine::CardRows result_rows(const PretrainCardFacts& f) {
  engine::CardRows rows;
  if (has_number(f.last_log, "loss")) {
    rows.push_back({"training loss (step " + std::to_string(f.last_log.value("step", int64_t(0))) + ")",
                    std::to_string(f.last_log["loss"].get<double>())});
  }
  if (has_number(f.last_eval, "eval_loss")) {
    const nlohmann::json& e = f.last_eval;
    rows.push_back({"held-out MLM loss / perplexity (step " + std::to_string(e.value("step", int64_t(0))) + ")",
                    std::to_string(e["eval_loss"].get<double>()) + " / " +
                        std::to_string(std::exp(e["eval_loss"].get<double>()))});
    if (has_number(e, "eval_accuracy")) {
      rows.push_back({"held-out MLM accuracy", std::to_string(e["eval_accuracy"].get<double>())});
    }
  }
  return rows;
}

}  // namespace

std::string pretrain_model_card(const PretrainOptions& o, const PretrainCardFacts& f) {
  model::BertConfig config = f.config;
  config.architectures = {f.config.masked_lm_class()};
  engine::ModelCard card = engine::training_card(config, f.parameters, "fill-mask");
  card.title = o.model + " pre-trained with bertpt (masked language modelling)";
  card.summary = family_article(f.config) + " masked language model " +
                 (o.init_from.empty() ? std::string("trained from scratch") : "continued from " + o.init_from) +
                 " by bertpt (" + std::string(BERTPT_VERSION) +
                 ") on the dataset below, in the recipe of the Hugging Face guide \"Pre-training BERT with Hugging "
                 "Face Transformers\". It loads with `AutoModelForMaskedLM.from_pretrained(PATH)`.";
  card.data = data_rows(o, f);
  card.training = training_rows(o, f);
  engine::add_run_rows(card, o.precision, f.device, f.world, torch_compat::torch_version());
  card.results = result_rows(f);
  card.example_input = "The capital of France is [MASK].";
  return engine::render_model_card(card);
}

}  // namespace bertpt::mlm
