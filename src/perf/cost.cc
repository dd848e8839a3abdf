#include "perf/cost.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::perf {

double parse_positive_number(const std::string& s, const std::string& what) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || !(v > 0) || !std::isfinite(v)) {
    throw BadInput(what + ": '" + s + "' is not a positive number");
  }
  return v;
}

std::vector<InstancePrice> load_price_table(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw BadInput(path + ": not valid JSON (" + e.what() + ")", "fix the price table or pass another with --prices");
  }
  if (!j.is_object() || !j.contains("instances") || !j["instances"].is_array()) {
    throw BadInput(path + ": no \"instances\" array", "see configs/prices.json for the format");
  }
  std::vector<InstancePrice> table;
  size_t i = 0;
  for (const auto& e : j["instances"]) {
    std::string where = path + ": instances[" + std::to_string(i++) + "]";
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string())
      throw BadInput(where + ": missing string field \"name\"");
    InstancePrice p;
    p.name = e["name"];
    where += " (" + p.name + ")";
    if (!e.contains("price_per_hour") || !e["price_per_hour"].is_number() || !(e["price_per_hour"].get<double>() > 0)) {
      throw BadInput(where + ": \"price_per_hour\" must be a positive number");
    }
    p.price_per_hour = e["price_per_hour"];
    if (!e.contains("devices") || !e["devices"].is_number_integer() || e["devices"].get<int>() < 1) {
      throw BadInput(where + ": \"devices\" must be a positive integer");
    }
    p.devices = e["devices"];
    p.device = e.value("device", "");
    p.source = e.value("source", "");
    p.as_of = e.value("as_of", "");
    for (const auto& other : table) {
      if (other.name == p.name) throw BadInput(where + ": duplicate instance name");
    }
    table.push_back(p);
  }
  return table;
}

std::string default_price_table_path() {
  if (const char* env = std::getenv("BERTPT_CONFIG_DIR"); env && *env) return std::string(env) + "/prices.json";
#ifdef BERTPT_CONFIG_DIR
  if (std::filesystem::exists(std::string(BERTPT_CONFIG_DIR) + "/prices.json"))
    return std::string(BERTPT_CONFIG_DIR) + "/prices.json";
#endif
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  return (exe / "../share/bertpt/configs/prices.json").string();
}

const InstancePrice& find_instance(const std::vector<InstancePrice>& table, const std::string& name) {
  std::string known;
  for (const auto& p : table) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw BadInput("unknown instance '" + name + "'",
                 "known: " + known + " (or use --price-per-hour, or edit the price table)");
}

double Throughput::seq_per_sec(const Job& job) const {
  switch (kind) {
    case Kind::SeqPerSec: return value;
    case Kind::HoursPerSteps: return double(steps) * double(job.global_batch) / (value * 3600.0);
    case Kind::JobHours: return job.sequences() / (value * 3600.0);
  }
  return 0;
}

Throughput parse_throughput(const std::string& text) {
  Throughput t;
  t.origin = text;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) {
    t.kind = Throughput::Kind::SeqPerSec;
    t.value = parse_positive_number(text.substr(0, text.size() - 2), "sequences per second");
    return t;
  }
  size_t h = text.find('h');
  if (h == std::string::npos) {
    throw BadInput(
        "throughput '" + text + "' is not understood",
        "write SEQ/s (e.g. 530/s), HOURSh/STEPS (e.g. 12.5h/100000) or HOURSh for the whole job (e.g. 33.25h)");
  }
  t.value = parse_positive_number(text.substr(0, h), "hours");
  if (h + 1 == text.size()) {
    t.kind = Throughput::Kind::JobHours;
    return t;
  }
  if (text[h + 1] != '/') throw BadInput("throughput '" + text + "': expected '/' after the hours");
  t.kind = Throughput::Kind::HoursPerSteps;
  t.steps = uint64_t(parse_positive_number(text.substr(h + 2), "steps"));
  return t;
}

CostRow estimate_cost(const Job& job, const InstancePrice& instance, int count, const Throughput& throughput) {
  if (count < 1) throw BadInput("instance count must be at least 1");
  if (job.steps == 0 || job.global_batch == 0) throw BadInput("--steps and --global-batch must be positive");
  CostRow r;
  r.instance = instance.name;
  r.count = count;
  r.devices = instance.devices * count;
  r.price_per_hour = instance.price_per_hour;
  r.seq_per_sec = throughput.seq_per_sec(job);
  if (!(r.seq_per_sec > 0)) throw BadInput("throughput must be positive");
  r.hours = job.sequences() / r.seq_per_sec / 3600.0;
  r.instance_hours = r.hours * count;
  r.device_hours = r.hours * r.devices;
  r.dollars = r.instance_hours * instance.price_per_hour;
  r.throughput_origin = throughput.origin;
  r.measured_devices = throughput.measured_devices;
  r.price_source = instance.source;
  r.price_as_of = instance.as_of;
  return r;
}

InstanceSpec parse_instance_spec(const std::string& text) {
  InstanceSpec s;
  std::string rest = text;
  size_t eq = rest.find('=');
  if (eq != std::string::npos) {
    s.throughput = parse_throughput(rest.substr(eq + 1));
    rest = rest.substr(0, eq);
  }
  size_t star = rest.find('*');
  if (star != std::string::npos) {
    double c = parse_positive_number(rest.substr(star + 1), "instance count in '" + text + "'");
    if (c != std::floor(c)) throw BadInput("instance count in '" + text + "' must be a whole number");
    s.count = int(c);
    rest = rest.substr(0, star);
  }
  if (rest.empty()) throw BadInput("--instance '" + text + "' has no name", "write NAME[*COUNT][=THROUGHPUT]");
  s.name = rest;
  return s;
}

}  // namespace bertpt::perf
