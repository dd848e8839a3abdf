// The human progress line of a pre-training metrics record (mlm/pretrain.h).
#include "mlm/pretrain.h"

#include <cstdio>
#include <string>

#include "common/progress.h"

namespace bertpt::mlm {

std::string format_log_line(const nlohmann::json& r, int64_t max_steps) {
  auto d = [&](const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; };
  char buf[512];
  const int64_t step = r.value("step", int64_t(0));
  // A non-finite value is null in the record (JSON has no inf): an overflowed loss reads "inf", not 0.
  auto fixed = [&](const char* k, int decimals) {
    if (!r.contains(k) || !r[k].is_number()) return std::string("inf");
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, r[k].get<double>());
    return std::string(b);
  };
  if (r.contains("eval_loss")) {
    std::snprintf(buf, sizeof buf, "eval @ step %lld | loss %s | perplexity %s | accuracy %.4f | %lld sequences, %s",
                  (long long)step, fixed("eval_loss", 4).c_str(), fixed("eval_perplexity", 2).c_str(),
                  d("eval_accuracy"), (long long)r.value("eval_sequences", int64_t(0)),
                  Progress::format_duration(d("eval_seconds")).c_str());
    return buf;
  }
  auto human = [](double v) {
    char b[32];
    if (v >= 1e6) std::snprintf(b, sizeof b, "%.2fM", v / 1e6);
    else if (v >= 1e3) std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
    else std::snprintf(b, sizeof b, "%.1f", v);
    return std::string(b);
  };
  std::string line;
  std::snprintf(buf, sizeof buf,
                "step %lld/%lld | loss %.4f | acc %.4f | lr %.3g | gnorm %.3f | %s tok/s | %.2f seq/s | MFU %.1f%%",
                (long long)step, (long long)max_steps, d("loss"), d("mlm_accuracy"), d("learning_rate"), d("grad_norm"),
                human(d("tokens_per_sec")).c_str(), d("seq_per_sec"), 100 * d("mfu"));
  line = buf;
  line += " | " + Progress::format_duration(d("elapsed_sec")) + " elapsed, ETA " +
          Progress::format_duration(d("eta_sec"));
  if (r.contains("cost_usd")) {
    std::snprintf(buf, sizeof buf, " | $%.2f so far, $%.2f projected", d("cost_usd"), d("projected_cost_usd"));
    line += buf;
  }
  if (r.value("skipped_steps", int64_t(0)) > 0)
    line += " | " + std::to_string(r["skipped_steps"].get<int64_t>()) + " skipped";
  if (r.contains("phase")) {
    line += " | phase " + std::to_string(r["phase"].get<int>()) + ", " + std::to_string(r["seq_len"].get<int>()) +
            " tokens";
  }
  return line;
}

}  // namespace bertpt::mlm
