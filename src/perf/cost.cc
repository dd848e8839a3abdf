#include "perf/cost.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"

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
  const std::string hint = "see configs/prices.json for the format";
  const nlohmann::json j = read_json_file(path, hint);
  const JsonValue instances = JsonFields(j, path, "", hint).value("instances");
  std::vector<InstancePrice> table;
  for (size_t i = 0; i < instances.array().size(); ++i) {
    const JsonFields e = instances.element(i).fields();
    InstancePrice p;
    p.name = e.str("name");
    p.price_per_hour = e.number("price_per_hour");
    if (!(p.price_per_hour > 0))
      e.fail("price_per_hour", "is " + std::to_string(p.price_per_hour) + ", expected a positive number");
    const int64_t devices = e.i64("devices");
    if (devices < 1 || devices > 1 << 20)
      e.fail("devices", "is " + std::to_string(devices) + ", expected a positive integer");
    p.devices = int(devices);
    p.device = e.str_or("device", "");
    p.source = e.str_or("source", "");
    p.as_of = e.str_or("as_of", "");
    for (const auto& other : table) {
      if (other.name == p.name) e.fail("name", "is \"" + p.name + "\", the name of an earlier instance (duplicate)");
    }
    table.push_back(p);
  }
  return table;
}

BenchFile read_bench_file(const std::string& path) {
  const std::string hint = "pass the file written by bertpt bench --out";
  const nlohmann::json j = read_json_file(path, hint);
  const JsonFields f(j, path, "", hint);
  BenchFile b;
  b.seq_len = f.u32("seq_len");
  b.seq_per_sec = f.number("seq_per_sec");
  if (!(b.seq_per_sec > 0))
    f.fail("seq_per_sec", "is " + std::to_string(b.seq_per_sec) + ", expected a positive number");
  const std::optional<JsonValue> world = f.optional("world_size");
  b.world_size = world ? int(std::max<int64_t>(1, world->i64())) : 1;
  if (const std::optional<JsonValue> v = f.optional("batch")) b.batch = v->i64();
  if (const std::optional<JsonValue> v = f.optional("gradient_bytes")) b.gradient_bytes = v->number();
  return b;
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
  if (throughput.measured_devices > 0 && throughput.measured_devices != r.devices) {
    r.measured_seq_per_sec = r.seq_per_sec;
    r.seq_per_sec *= double(r.devices) / throughput.measured_devices;
  }
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
