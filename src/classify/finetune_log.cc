// The human lines of fine-tuning's metrics records (classify/finetune.h).
#include "classify/finetune.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace bertpt::classify {

std::string format_finetune_log(const nlohmann::json& r) {
  char buf[512];
  if (r.contains("train_loss")) {  // an epoch record
    std::string line = "epoch " + std::to_string(r.value("epoch", int64_t(0)));
    std::snprintf(buf, sizeof buf, " | train loss %.4f", r["train_loss"].get<double>());
    line += buf;
    auto number = [&](const char* key) { return r[key].is_number() ? r[key].get<double>() : std::nan(""); };
    if (r.contains("valid_f1")) {
      std::snprintf(buf, sizeof buf, " | valid entity F1 %.4f | precision %.4f | recall %.4f | word accuracy %.4f",
                    number("valid_f1"), number("valid_precision"), number("valid_recall"), number("valid_accuracy"));
      line += buf;
    } else if (r.contains("valid_accuracy")) {
      std::snprintf(buf, sizeof buf, " | valid accuracy %.4f | macro-F1 %.4f", number("valid_accuracy"),
                    number("valid_macro_f1"));
      line += buf;
    } else if (r.contains("valid_pearson")) {
      std::snprintf(buf, sizeof buf, " | valid Pearson %.4f | Spearman %.4f | MSE %.4f", number("valid_pearson"),
                    number("valid_spearman"), number("valid_mse"));
      line += buf;
    }
    const bool evaluated = r.contains("valid_accuracy") || r.contains("valid_pearson") || r.contains("valid_f1");
    return line + (r.value("best", false) && evaluated ? " | best so far" : "");
  }
  std::snprintf(buf, sizeof buf, "step %lld/%lld | epoch %.2f | loss %.4f | lr %.3g | %.1f examples/s",
                (long long)r.value("step", int64_t(0)), (long long)r.value("max_steps", int64_t(0)),
                r.value("epoch", 0.0), r.value("loss", 0.0), r.value("learning_rate", 0.0),
                r.value("examples_per_sec", 0.0));
  return buf;
}

}  // namespace bertpt::classify
