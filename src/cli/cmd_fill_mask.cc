// `bertpt fill-mask`: top-k predictions for each [MASK] of a text (src/mlm/fill_mask.h).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/error.h"

#include "engine/device.h"
#include "io/npy.h"
#include "mlm/fill_mask.h"

namespace bertpt::cli {

void add_fill_mask_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::string model, tokenizer, device = "cpu", save_logits;
    int top_k = 5, threads = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("fill-mask",
                                 "Top-k predictions for each mask token ([MASK], RoBERTa's <mask>) in a text (a BERT, "
                                 "ModernBERT, RoBERTa or XLM-R MaskedLM checkpoint).\n"
                                 "Usage: bertpt fill-mask --model DIR [options] TEXT...");
  cmd->add_option("--model", o->model, "Checkpoint directory (config.json + model.safetensors + tokenizer files)")
      ->required();
  // The texts are taken as the command's extra arguments, not as a CLI11 list option: CLI11 reads
  // an argument in brackets ("[MASK] is [MASK]") as a "[a,b]" list, strips them and splits at commas.
  cmd->allow_extras();
  cmd->add_option("--tokenizer", o->tokenizer, "Tokenizer directory, when it is not in the model directory");
  cmd->add_option("--top-k", o->top_k, "Predictions per [MASK]")->capture_default_str();
  cmd->add_option("--device", o->device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--save-logits", o->save_logits,
                  "Also write each text's logits at every position, [tokens, vocab] fp32, to DIR/logits-<i>.npy "
                  "(i from 0, in the order of the texts)");
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  add_common_flags(cmd, o->common);
  cmd->callback([o, cmd] {
    const std::vector<std::string> texts = cmd->remaining();
    for (const auto& t : texts) {
      if (t.size() > 1 && t[0] == '-') throw BadInput("fill-mask: unknown option " + t, "see bertpt fill-mask --help");
    }
    if (texts.empty())
      throw BadInput("fill-mask: no text given", "bertpt fill-mask --model DIR \"The capital of France is [MASK].\"");
    if (o->top_k <= 0) throw BadInput("--top-k must be > 0");
    mlm::FillMasker masker(o->model, o->tokenizer, engine::setup_runtime(o->threads, o->device));
    if (!o->save_logits.empty()) std::filesystem::create_directories(o->save_logits);
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < texts.size(); ++i) {
      const std::string& text = texts[i];
      mlm::FillMaskResult r = masker.run(text, o->top_k, /*with_logits=*/!o->save_logits.empty());
      if (!o->save_logits.empty()) {
        const int64_t rows = int64_t(r.logits.size()) / r.vocab_size;
        io::write_npy_float32(o->save_logits + "/logits-" + std::to_string(i) + ".npy", {rows, r.vocab_size},
                              r.logits.data());
      }
      nlohmann::json masks = nlohmann::json::array();
      if (!o->common.json) std::printf("%s\n", text.c_str());
      for (size_t m = 0; m < r.predictions.size(); ++m) {
        nlohmann::json preds = nlohmann::json::array();
        if (!o->common.json && r.predictions.size() > 1) std::printf("  [MASK] #%zu\n", m + 1);
        for (const auto& p : r.predictions[m]) {
          // The keys of transformers' fill-mask pipeline.
          preds.push_back(
              {{"score", p.score}, {"token", p.token}, {"token_str", p.token_str}, {"sequence", p.sequence}});
          if (!o->common.json) std::printf("  %6.4f  %-16s %s\n", p.score, p.token_str.c_str(), p.sequence.c_str());
        }
        masks.push_back({{"position", r.mask_positions[m]}, {"predictions", preds}});
      }
      out.push_back({{"text", text}, {"masks", masks}});
    }
    if (o->common.json) print_json({{"model", o->model}, {"results", out}});
  });
}

}  // namespace bertpt::cli
