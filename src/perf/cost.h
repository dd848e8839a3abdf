// Time and money for a training job: measured throughput -> hours -> dollars, per instance type, as
// in the cost analysis of Hugging Face/Habana's guide "Pre-training BERT with Hugging Face
// Transformers and Habana Gaudi" (100k steps measured, extrapolated to the original BERT's 1M steps;
// docs/cost.md reproduces its numbers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bertpt::perf {

struct InstancePrice {
  std::string name;
  double price_per_hour = 0;  // USD per instance-hour
  int devices = 1;            // accelerators per instance
  std::string device, source, as_of;
};

// Reads a price table (configs/prices.json format); throws BadInput naming the file and entry.
std::vector<InstancePrice> load_price_table(const std::string& path);

// What `bertpt bench --out FILE` measured (the fields the cost and scaling projections read).
struct BenchFile {
  uint32_t seq_len = 0;
  double seq_per_sec = 0;
  int world_size = 1;         // devices the bench ran on
  int64_t batch = 0;          // per device; 0 in files of older versions
  double gradient_bytes = 0;  // 0 in files of older versions
};

// BadInput naming the file and the field for a file that is not a bench result.
BenchFile read_bench_file(const std::string& path);
// configs/prices.json of this installation.
std::string default_price_table_path();
// Throws BadInput listing the known names when `name` is not in the table.
const InstancePrice& find_instance(const std::vector<InstancePrice>& table, const std::string& name);

struct Job {
  uint64_t steps = 1'000'000;
  uint64_t global_batch = 256;
  uint32_t seq_len = 512;
  double sequences() const { return double(steps) * double(global_batch); }
};

// How fast a hardware setup trains, in one of three forms.
struct Throughput {
  enum class Kind { SeqPerSec, HoursPerSteps, JobHours } kind = Kind::SeqPerSec;
  double value = 0;          // seq/s, or hours
  uint64_t steps = 0;        // HoursPerSteps: the measured run's steps
  std::string origin;        // where the number comes from, for the report
  int measured_devices = 0;  // the devices a `bertpt bench` file measured on (0: not from a bench)
  double seq_per_sec(const Job& job) const;
};

// The whole of `text` as a finite number > 0; BadInput "WHAT: 'TEXT' is not a positive number".
double parse_positive_number(const std::string& text, const std::string& what);

// "530/s", "12.5h/100000", "33.25h" (hours for the whole job). Throws BadInput.
Throughput parse_throughput(const std::string& text);

struct CostRow {
  std::string instance;
  int count = 1;              // instances
  int devices = 0;            // accelerators in all
  double price_per_hour = 0;  // per instance
  double seq_per_sec = 0;     // whole setup
  double hours = 0;           // wall-clock
  double instance_hours = 0, device_hours = 0, dollars = 0;
  std::string throughput_origin, price_source, price_as_of;
  int measured_devices = 0;         // of the throughput (0: not from a bench)
  double measured_seq_per_sec = 0;  // a bench's throughput on its measured_devices, before scaling
};

// The job's time and dollars on `count` × `instance` at `throughput`. A bench measured on another
// number of devices than the setup has is scaled perfectly, per device (measured_devices records it;
// `bertpt cost --scale-nodes` models the interconnect instead).
CostRow estimate_cost(const Job& job, const InstancePrice& instance, int count, const Throughput& throughput);

// One `--instance` argument: NAME[*COUNT][=THROUGHPUT].
struct InstanceSpec {
  std::string name;
  int count = 1;
  std::optional<Throughput> throughput;
};
InstanceSpec parse_instance_spec(const std::string& text);

}  // namespace bertpt::perf
