// `bertpt predict`: label and class probabilities per input line (tags per word) with a fine-tuned classifier
// (src/classify/predict.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/error.h"

#include "classify/predict.h"

namespace bertpt::cli {

void add_predict_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    classify::PredictOptions p;
    bool no_header = false;
  };
  auto o = std::make_shared<Opts>();
  auto& p = o->p;
  auto* cmd = app.add_subcommand(
      "predict", "Classify texts or tag words (NER) with a fine-tuned model: one JSON line per example");
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a repeated flag: the last wins
  cmd->add_option("--model", p.model, "Fine-tuned classifier directory (bertpt finetune's best/, or transformers')")
      ->required();
  cmd->add_option("--tokenizer", p.tokenizer, "Tokenizer directory (default: the model directory)");
  cmd->add_option(
         "--input", p.input,
         "Examples: JSONL, CSV or TSV (a token classifier: CoNLL); a label field (tag column), when present, is scored")
      ->required();
  cmd->add_option("--output", p.output, "JSONL output file (written atomically), or - for stdout")
      ->capture_default_str();
  cmd->add_option("--format", p.data.format,
                  "auto (by extension), jsonl, csv, tsv; conll (token classifiers read CoNLL whatever the extension)")
      ->capture_default_str();
  cmd->add_option("--text-field", p.data.text_field, "Field of the text")->capture_default_str();
  cmd->add_option("--text-pair-field", p.data.text_pair_field, "Field of the second text, for pair tasks");
  cmd->add_option("--label-field", p.data.label_field, "Field of the gold label, if any (for the accuracy report)")
      ->capture_default_str();
  cmd->add_flag("--no-header", o->no_header, "CSV/TSV files have no header line: fields are 0-based column indices");
  cmd->add_option("--max-seq-len", p.max_seq_len, "Truncate to this many tokens (0: the model's maximum)")
      ->capture_default_str();
  cmd->add_option("--batch-size", p.batch_size, "Examples per batch")->capture_default_str();
  cmd->add_option("--precision", p.precision, "bf16 or fp32")->capture_default_str();
  cmd->add_option("--device", p.device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--threads", p.threads, "CPU threads (0: all cores)")->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    o->p.data.header = !o->no_header;
    if (o->common.json && o->p.output == "-") {
      throw BadInput("--json prints a summary on stdout, where the predictions go by default", "pass --output FILE");
    }
    classify::PredictSummary s = classify::run_predict(o->p);
    nlohmann::json summary = {{"model", o->p.model},    {"input", o->p.input},      {"output", o->p.output},
                              {"examples", s.examples}, {"truncated", s.truncated}, {"seconds", s.seconds}};
    if (s.metrics) summary["metrics"] = s.metrics->to_json();
    if (s.regression) summary["metrics"] = s.regression->to_json();
    if (s.entities) summary["metrics"] = s.entities->to_json();
    if (!o->common.quiet) {
      std::fprintf(stderr, "predict: %lld examples in %.2f s%s\n", (long long)s.examples, s.seconds,
                   s.truncated ? (" (" + std::to_string(s.truncated) + " truncated)").c_str() : "");
      if (s.metrics) std::fprintf(stderr, "%s", classify::format_metrics_table(*s.metrics).c_str());
      if (s.entities) std::fprintf(stderr, "%s", classify::format_entity_table(*s.entities).c_str());
      if (s.regression) {
        std::fprintf(stderr, "Pearson %.4f | Spearman %.4f | MSE %.4f\n", s.regression->pearson, s.regression->spearman,
                     s.regression->mse);
      }
    }
    if (o->common.json) print_json(summary);
  });
}

}  // namespace bertpt::cli
