// One progress line on stderr, redrawn in place at most a few times a second. It is silent when
// `quiet` is set or when stderr is not a terminal (logs and CI stay clean); the final summary is
// always printed unless quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace bertpt {

class Progress {
 public:
  // `label` starts every line, e.g. "corpus merge".
  Progress(std::string label, bool quiet);
  ~Progress();

  // Redraws the line when enough time has passed since the last draw. `done`/`total` in bytes
  // give a percentage and an ETA when total > 0. `detail` is free text (documents, rates...).
  void update(unsigned long long done, unsigned long long total, const std::string& detail);
  // Clears the live line and prints `summary` as a final line (unless quiet).
  void finish(const std::string& summary);

  double elapsed_seconds() const;
  bool interactive() const { return interactive_; }

  static std::string format_bytes(double bytes);
  static std::string format_duration(double seconds);
  static std::string format_count(uint64_t n);  // 1234567 -> "1,234,567"

 private:
  std::string label_;
  bool quiet_;
  bool interactive_;
  bool line_drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace bertpt
