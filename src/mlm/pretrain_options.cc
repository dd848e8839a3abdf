#include "mlm/pretrain_options.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <type_traits>

#include "common/error.h"
#include "common/options_json.h"
#include "data/phase_schedule.h"
#include "model/bert_config.h"

namespace bertpt::mlm {

nlohmann::json PretrainOptions::to_json() const {
  return options_to_json(*this, [](const auto& o, auto&& f) { visit_pretrain_options(o, f); });
}

void PretrainOptions::apply_json(const nlohmann::json& j, const std::string& source) {
  apply_options_json(
      *this, [](auto& o, auto&& f) { visit_pretrain_options(o, f); }, j, source, "train");
}

void PretrainOptions::validate() const {
  auto need = [](bool ok, const std::string& flag, const std::string& what) {
    if (!ok) throw BadInput(flag + " " + what);
  };
  need(!data.empty(), "--data", "is required (a directory written by bertpt prepare)");
  RunOptions::validate();  // output_dir, the step, the machine, the log
  // Comparisons are false for NaN, and every bound below is finite, so NaN and inf are refused too.
  need(global_batch_size >= 0, option_flag("global_batch_size"), "must be >= 0 (0: per-device batch x ranks)");
  need(max_steps > 0, option_flag("max_steps"), "must be > 0");
  need(warmup_steps >= 0, option_flag("warmup_steps"), "must be >= 0");
  const auto kind = engine::parse_lr_schedule(lr_scheduler);  // BadInput listing the schedules
  if (kind == engine::LrScheduleKind::Polynomial) {
    // transformers refuses lr_end >= the peak too (get_polynomial_decay_schedule_with_warmup).
    need(lr_end >= 0 && lr_end < learning_rate, option_flag("lr_end"), "must be >= 0 and below --learning-rate");
    need(lr_power > 0 && lr_power <= 100, option_flag("lr_power"), "must be in (0, 100]");
  }
  if (kind == engine::LrScheduleKind::WarmupStableDecay) {
    engine::parse_decay_shape(decay_type);
    need(decay_steps >= 0 && decay_steps <= max_steps - warmup_steps, option_flag("decay_steps"),
         "must be in [0, --max-steps - --warmup-steps]");
    need(min_lr_ratio >= 0 && min_lr_ratio <= 1, option_flag("min_lr_ratio"), "must be in [0, 1]");
  }
  need(adam_beta1 >= 0 && adam_beta1 < 1, option_flag("adam_beta1"), "must be in [0, 1)");
  need(adam_beta2 >= 0 && adam_beta2 < 1, option_flag("adam_beta2"), "must be in [0, 1)");
  need(adam_epsilon > 0 && adam_epsilon <= 1, option_flag("adam_epsilon"), "must be in (0, 1]");
  need(mlm_probability > 0 && mlm_probability < 1, option_flag("mlm_probability"), "must be in (0, 1)");
  need(attention == "auto" || attention == "fused" || attention == "explicit", option_flag("attention"),
       "must be auto, fused or explicit");
  need(optim == "adamw" || optim == "adamw_torch_fused" || optim == "adamw_torch" || optim == "adamw_bertpt" ||
           optim == "lamb",
       option_flag("optim"),
       "must be adamw, adamw_torch_fused, adamw_torch, adamw_bertpt or lamb, not '" + optim + "'");
  need(eval_steps >= 0, option_flag("eval_steps"), "must be >= 0");
  need(eval_max_batches >= 0, option_flag("eval_max_batches"), "must be >= 0");
  need(save_steps >= 0, option_flag("save_steps"), "must be >= 0");
  need(save_total_limit >= 0, option_flag("save_total_limit"), "must be >= 0");
  need(price_per_hour >= 0 && price_per_hour < 1e9, option_flag("price_per_hour"), "must be a finite number >= 0");
  need(peak_tflops >= 0 && peak_tflops < 1e9, option_flag("peak_tflops"), "must be a finite number >= 0");
  data::parse_phase_schedule(phase_schedule, max_steps);  // BadInput naming --phase-schedule
  if (!init_from.empty() && !resume.empty() && resume != "auto") {
    throw BadInput("--init-from and --resume both given",
                   "--resume continues a run (weights included); --init-from starts a new one");
  }
}

engine::LrSchedule lr_schedule_of(const PretrainOptions& o) {
  engine::LrSchedule s;
  s.kind = engine::parse_lr_schedule(o.lr_scheduler);
  s.peak = o.learning_rate;
  s.warmup = o.warmup_steps;
  s.total = o.max_steps;
  s.lr_end = o.lr_end;
  s.power = o.lr_power;
  s.decay_steps = o.decay_steps > 0 ? o.decay_steps : (o.max_steps - o.warmup_steps) / 10;
  if (s.kind == engine::LrScheduleKind::WarmupStableDecay) s.decay_shape = engine::parse_decay_shape(o.decay_type);
  s.min_lr_ratio = o.min_lr_ratio;
  return s;
}

namespace {

// The shape fields in which `model` differs from `checkpoint`, as "name model's/checkpoint's"
// ("" when none does). A preset's vocab_size follows the data, so it is not compared.
std::string architecture_difference(const model::BertConfig& model, const model::BertConfig& checkpoint,
                                    bool compare_vocab) {
  std::string out;
  auto field = [&](const char* name, const auto& a, const auto& b) {
    if (a == b) return;
    std::string va, vb;
    if constexpr (std::is_same_v<std::decay_t<decltype(a)>, std::string>) va = a, vb = b;
    else va = std::to_string(a), vb = std::to_string(b);
    out += (out.empty() ? "" : ", ") + std::string(name) + " " + va + "/" + vb;
  };
  field("model_type", model.model_type, checkpoint.model_type);
  field("num_hidden_layers", model.num_hidden_layers, checkpoint.num_hidden_layers);
  field("hidden_size", model.hidden_size, checkpoint.hidden_size);
  field("num_attention_heads", model.num_attention_heads, checkpoint.num_attention_heads);
  field("intermediate_size", model.intermediate_size, checkpoint.intermediate_size);
  field("hidden_act", model.hidden_act, checkpoint.hidden_act);
  field("max_position_embeddings", model.max_position_embeddings, checkpoint.max_position_embeddings);
  field("type_vocab_size", model.type_vocab_size, checkpoint.type_vocab_size);
  if (compare_vocab) field("vocab_size", model.vocab_size, checkpoint.vocab_size);
  return out;
}

}  // namespace

void adopt_init_from_model(PretrainOptions& o, bool model_given) {
  if (o.init_from.empty()) return;
  const std::filesystem::path config_file = std::filesystem::path(o.init_from) / "config.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(config_file, ec)) return;
  if (model_given && o.model != o.init_from) {
    const model::BertConfig checkpoint = model::BertConfig::load(config_file.string());
    const std::string diff = architecture_difference(model::resolve_model_config(o.model), checkpoint,
                                                     !model::is_preset_name(o.model));
    if (!diff.empty()) {
      throw BadInput("--model " + o.model + " is not the architecture of --init-from " + o.init_from + " (" + diff +
                         ": --model's/the checkpoint's)",
                     "drop --model; the checkpoint's config is used");
    }
  }
  o.model = o.init_from;
}

void resolve_global_batch(PretrainOptions& o, int world_size) {
  if (o.global_batch_size == 0) return;
  if (!o.phase_schedule.empty()) {
    throw BadInput("--global-batch-size cannot be combined with --phase-schedule",
                   "give each phase's batch and accumulation in the schedule (LEN:SHARE:BATCH:ACCUM)");
  }
  if (o.grad_accum != 1) {
    throw BadInput("--global-batch-size and --grad-accum " + std::to_string(o.grad_accum) +
                       " both set the accumulation",
                   "give one of them");
  }
  const int64_t per_step = o.per_device_batch_size * world_size;
  if (o.global_batch_size % per_step != 0) {
    throw BadInput("--global-batch-size " + std::to_string(o.global_batch_size) + " is not a multiple of " +
                       std::to_string(o.per_device_batch_size) + " per device x " + std::to_string(world_size) +
                       " ranks",
                   "choose a --per-device-batch-size that divides it for every world size the job may have");
  }
  o.grad_accum = o.global_batch_size / per_step;
}

}  // namespace bertpt::mlm
