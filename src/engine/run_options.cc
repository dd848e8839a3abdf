#include "engine/run_options.h"

#include <cmath>

#include "common/error.h"
#include "common/options_json.h"
#include "engine/precision.h"
#include "engine/run_log.h"

namespace bertpt::engine {

void RunOptions::validate() const {
  auto need = [](bool ok, const char* key, const std::string& what) {
    if (!ok) throw BadInput(option_flag(key) + " " + what);
  };
  need(!output_dir.empty(), "output_dir", "is required (the run directory)");
  // Comparisons are false for NaN, and every bound below is finite, so NaN and inf are refused too.
  need(learning_rate >= 0 && learning_rate <= 10, "learning_rate", "must be in [0, 10]");
  need(per_device_batch_size > 0, "per_device_batch_size", "must be > 0");
  need(grad_accum > 0, "grad_accum", "must be > 0");
  need(weight_decay >= 0 && weight_decay <= 1e3, "weight_decay", "must be in [0, 1000]");
  need(!std::isnan(max_grad_norm) && max_grad_norm < 1e30, "max_grad_norm",
       "must be a finite number (<= 0: no clipping)");
  need(max_nan_steps > 0, "max_nan_steps", "must be > 0");
  parse_precision(precision, option_flag("precision"));
  need(device == "cpu" || device.rfind("cuda", 0) == 0, "device", "must be cpu, cuda or cuda:N, not '" + device + "'");
  need(threads >= 0, "threads", "must be >= 0");
  need(logging_steps >= 0, "logging_steps", "must be >= 0 (0: about 30 records per run)");
  validate_report_to(report_to);
}

}  // namespace bertpt::engine
