#include "data/phase_schedule.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/error.h"

namespace bertpt::data {

namespace {

constexpr const char* kFlag = "--phase-schedule";
constexpr const char* kFormat = "write LEN:SHARE[:PER_DEVICE_BATCH[:GRAD_ACCUM]],... e.g. 128:0.9,512:0.1";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (;;) {
    size_t end = s.find(sep, begin);
    parts.push_back(s.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

[[noreturn]] void fail(const std::string& part, const std::string& what) {
  throw BadInput(std::string(kFlag) + ": '" + part + "' " + what, kFormat);
}

// A whole number in [lo, hi], or fail.
int64_t whole(const std::string& field, const std::string& part, const char* name, int64_t lo, int64_t hi) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (field.empty() || used != field.size() || v < lo || v > hi) {
    fail(part, std::string("has ") + name + " '" + field + "', not a whole number in [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "]");
  }
  return v;
}

TrainingPhase parse_phase(const std::string& part) {
  const std::vector<std::string> f = split(part, ':');
  if (f.size() < 2 || f.size() > 4) fail(part, "is not LEN:SHARE[:PER_DEVICE_BATCH[:GRAD_ACCUM]]");
  TrainingPhase p;
  p.seq_len = uint32_t(whole(f[0], part, "a length", 8, 1 << 20));
  size_t used = 0;
  try {
    p.share = std::stod(f[1], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != f[1].size() || !(p.share > 0 && p.share <= 1)) fail(part, "has a share '" + f[1] + "' not in (0, 1]");
  if (f.size() > 2) p.per_device_batch = whole(f[2], part, "a batch size", 1, 1 << 20);
  if (f.size() > 3) p.grad_accum = whole(f[3], part, "an accumulation", 1, 1 << 20);
  return p;
}

}  // namespace

size_t PhaseSchedule::phase_at(int64_t step) const {
  for (size_t i = 0; i < phases.size(); ++i) {
    if (step < phases[i].end_step) return i;
  }
  return phases.empty() ? 0 : phases.size() - 1;
}

uint32_t PhaseSchedule::max_seq_len() const {
  uint32_t m = 0;
  for (const TrainingPhase& p : phases) m = std::max(m, p.seq_len);
  return m;
}

PhaseSchedule parse_phase_schedule(const std::string& text, int64_t max_steps) {
  PhaseSchedule s;
  if (text.empty()) return s;
  double total = 0;
  for (const std::string& part : split(text, ',')) {
    s.phases.push_back(parse_phase(part));
    total += s.phases.back().share;
  }
  if (std::fabs(total - 1.0) > 1e-6) {
    throw BadInput(std::string(kFlag) + " " + text + ": the shares add up to " + std::to_string(total) + ", not 1",
                   kFormat);
  }
  double cumulative = 0;
  int64_t begin = 0;
  for (size_t i = 0; i < s.phases.size(); ++i) {
    TrainingPhase& p = s.phases[i];
    cumulative += p.share;
    p.begin_step = begin;
    p.end_step = i + 1 == s.phases.size() ? max_steps
                                          : std::min(max_steps, int64_t(std::llround(cumulative * double(max_steps))));
    if (p.end_step <= p.begin_step) {
      throw BadInput(std::string(kFlag) + ": phase " + std::to_string(i + 1) + " (" + std::to_string(p.seq_len) +
                         " tokens) gets no step of --max-steps " + std::to_string(max_steps),
                     "raise --max-steps or that phase's share");
    }
    begin = p.end_step;
  }
  return s;
}

std::string length_dir_name(uint32_t seq_len) { return "seq-" + std::to_string(seq_len); }

std::string length_dir(const std::string& data, uint32_t seq_len) {
  return (std::filesystem::path(data) / length_dir_name(seq_len)).string();
}

std::vector<uint32_t> lengths_in(const std::string& data) {
  namespace fs = std::filesystem;
  std::vector<uint32_t> lengths;
  std::error_code ec;
  if (!fs::is_directory(data, ec)) return lengths;
  for (const auto& e : fs::directory_iterator(data, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("seq-", 0) != 0 || !fs::exists(e.path() / "manifest.json", ec)) continue;
    const std::string digits = name.substr(4);
    if (digits.empty() || digits.size() > 7 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    lengths.push_back(uint32_t(std::stoul(digits)));
  }
  std::sort(lengths.begin(), lengths.end());
  return lengths;
}

std::string length_dir_names(const std::vector<uint32_t>& lengths) {
  std::string names;
  for (uint32_t len : lengths) names += (names.empty() ? "" : ", ") + length_dir_name(len);
  return names;
}

}  // namespace bertpt::data
