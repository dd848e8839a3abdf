#include "common/progress.h"

#include <unistd.h>

#include <cstdio>

namespace bertpt {

using Clock = std::chrono::steady_clock;

Progress::Progress(std::string label, bool quiet)
    : label_(std::move(label)),
      quiet_(quiet),
      interactive_(!quiet && ::isatty(STDERR_FILENO)),
      start_(Clock::now()),
      last_draw_(start_) {}

Progress::~Progress() {
  if (line_drawn_) std::fputs("\n", stderr);
}

double Progress::elapsed_seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

std::string Progress::format_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 4) {
    bytes /= 1000.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

std::string Progress::format_duration(double s) {
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, (int(s) % 3600) / 60);
  }
  return buf;
}

void Progress::update(unsigned long long done, unsigned long long total, const std::string& detail) {
  if (!interactive_) return;
  auto now = Clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  double el = elapsed_seconds();
  std::string line = label_ + ": " + format_bytes(double(done));
  if (total > 0) {
    char pct[16];
    std::snprintf(pct, sizeof pct, " (%.1f%%)", 100.0 * double(done) / double(total));
    line += " of " + format_bytes(double(total)) + pct;
  }
  if (el > 0) line += ", " + format_bytes(double(done) / el) + "/s";
  if (!detail.empty()) line += ", " + detail;
  if (total > 0 && done > 0 && done < total && el > 0.5) {
    line += ", ETA " + format_duration(el * double(total - done) / double(done));
  }
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  line_drawn_ = true;
}

void Progress::finish(const std::string& summary) {
  if (line_drawn_) {
    std::fputs("\r\033[K", stderr);
    line_drawn_ = false;
  }
  if (!quiet_ && !summary.empty()) std::fprintf(stderr, "%s: %s\n", label_.c_str(), summary.c_str());
}

std::string Progress::format_count(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

}  // namespace bertpt
