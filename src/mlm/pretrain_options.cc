#include "mlm/pretrain_options.h"

#include <cmath>
#include <set>
#include <type_traits>

#include "common/error.h"
#include "data/phase_schedule.h"
#include "engine/precision.h"
#include "engine/run_log.h"

namespace bertpt::mlm {

namespace {

std::string flag_of(const std::string& key) {
  std::string f = "--" + key;
  for (char& c : f) c = c == '_' ? '-' : c;
  return f;
}

template <class T>
void set_from_json(T& member, const nlohmann::json& v, const std::string& source, const std::string& key) {
  auto wrong = [&](const char* what) {
    return BadInput(source + ": \"" + key + "\" must be " + what + ", got " + v.dump());
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw wrong("true or false");
    member = v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw wrong("a string");
    member = v.get<std::string>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer() && !v.is_number_unsigned()) throw wrong("an integer");
    if (std::is_unsigned_v<T> && v.is_number_integer() && v.get<int64_t>() < 0) throw wrong("a non-negative integer");
    member = v.get<T>();
  } else {
    if (!v.is_number()) throw wrong("a number");
    member = v.get<T>();
  }
}

}  // namespace

nlohmann::json PretrainOptions::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  visit_pretrain_options(*this, [&](const char* name, const auto& member, const char*) { j[name] = member; });
  return j;
}

void PretrainOptions::apply_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw BadInput(source + ": expected a JSON object of train options");
  for (const auto& [raw_key, value] : j.items()) {
    std::string key = raw_key;
    for (char& c : key) c = c == '-' ? '_' : c;
    bool found = false;
    visit_pretrain_options(*this, [&](const char* name, auto& member, const char*) {
      if (key == name) {
        set_from_json(member, value, source, key);
        found = true;
      }
    });
    if (!found) {
      throw BadInput(source + ": unknown train option \"" + raw_key + "\"",
                     "keys are the flag names with '_' for '-' (see bertpt train --help)");
    }
  }
}

void PretrainOptions::validate() const {
  auto need = [](bool ok, const std::string& flag, const std::string& what) {
    if (!ok) throw BadInput(flag + " " + what);
  };
  need(!data.empty(), "--data", "is required (a directory written by bertpt prepare)");
  need(!output_dir.empty(), "--output-dir", "is required (the run directory)");
  // Comparisons are false for NaN, and every bound below is finite, so NaN and inf are refused too.
  need(learning_rate >= 0 && learning_rate <= 10, flag_of("learning_rate"), "must be in [0, 10]");
  need(per_device_batch_size > 0, flag_of("per_device_batch_size"), "must be > 0");
  need(grad_accum > 0, flag_of("grad_accum"), "must be > 0");
  need(global_batch_size >= 0, flag_of("global_batch_size"), "must be >= 0 (0: per-device batch x ranks)");
  need(max_steps > 0, flag_of("max_steps"), "must be > 0");
  need(warmup_steps >= 0, flag_of("warmup_steps"), "must be >= 0");
  const auto kind = engine::parse_lr_schedule(lr_scheduler);  // BadInput listing the schedules
  if (kind == engine::LrScheduleKind::Polynomial) {
    // transformers refuses lr_end >= the peak too (get_polynomial_decay_schedule_with_warmup).
    need(lr_end >= 0 && lr_end < learning_rate, flag_of("lr_end"), "must be >= 0 and below --learning-rate");
    need(lr_power > 0 && lr_power <= 100, flag_of("lr_power"), "must be in (0, 100]");
  }
  if (kind == engine::LrScheduleKind::WarmupStableDecay) {
    engine::parse_decay_shape(decay_type);
    need(decay_steps >= 0 && decay_steps <= max_steps - warmup_steps, flag_of("decay_steps"),
         "must be in [0, --max-steps - --warmup-steps]");
    need(min_lr_ratio >= 0 && min_lr_ratio <= 1, flag_of("min_lr_ratio"), "must be in [0, 1]");
  }
  need(weight_decay >= 0 && weight_decay <= 1e3, flag_of("weight_decay"), "must be in [0, 1000]");
  need(adam_beta1 >= 0 && adam_beta1 < 1, flag_of("adam_beta1"), "must be in [0, 1)");
  need(adam_beta2 >= 0 && adam_beta2 < 1, flag_of("adam_beta2"), "must be in [0, 1)");
  need(adam_epsilon > 0 && adam_epsilon <= 1, flag_of("adam_epsilon"), "must be in (0, 1]");
  need(!std::isnan(max_grad_norm) && max_grad_norm < 1e30, flag_of("max_grad_norm"),
       "must be a finite number (<= 0: no clipping)");
  need(mlm_probability > 0 && mlm_probability < 1, flag_of("mlm_probability"), "must be in (0, 1)");
  engine::parse_precision(precision, flag_of("precision"));
  need(device == "cpu" || device.rfind("cuda", 0) == 0, flag_of("device"),
       "must be cpu, cuda or cuda:N, not '" + device + "'");
  need(threads >= 0, flag_of("threads"), "must be >= 0");
  need(attention == "auto" || attention == "fused" || attention == "explicit", flag_of("attention"),
       "must be auto, fused or explicit");
  need(optim == "adamw" || optim == "adamw_torch_fused" || optim == "adamw_torch" || optim == "adamw_bertpt" ||
           optim == "lamb",
       flag_of("optim"), "must be adamw, adamw_torch_fused, adamw_torch, adamw_bertpt or lamb, not '" + optim + "'");
  need(logging_steps > 0, flag_of("logging_steps"), "must be > 0");
  need(eval_steps >= 0, flag_of("eval_steps"), "must be >= 0");
  need(eval_max_batches >= 0, flag_of("eval_max_batches"), "must be >= 0");
  need(save_steps >= 0, flag_of("save_steps"), "must be >= 0");
  need(save_total_limit >= 0, flag_of("save_total_limit"), "must be >= 0");
  need(max_nan_steps > 0, flag_of("max_nan_steps"), "must be > 0");
  need(price_per_hour >= 0 && price_per_hour < 1e9, flag_of("price_per_hour"), "must be a finite number >= 0");
  need(peak_tflops >= 0 && peak_tflops < 1e9, flag_of("peak_tflops"), "must be a finite number >= 0");
  engine::validate_report_to(report_to);
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
