// Writes TensorBoard event files as a JSON spec says, for tests/peer/tensorboard_reader.py, which
// reads them back with TensorBoard's own reader. Test-only (CTest builds it as tfevents_fixture_writer).
//
//   tfevents_fixture_writer SPEC.json
//   {"dir": "...", "writers": [{"purge_step": 51 (optional), "ops": [
//      {"op": "scalar", "tag": "train/loss", "value": 2.5 | "nan" | "inf" | "-inf", "step": 1, "wall_time": 1.5},
//      {"op": "text", "tag": "args", "markdown": "...", "step": 0, "wall_time": 1.5},
//      {"op": "flush"}, {"op": "kill"}]}, ...]}
// Writers run one after the other in this process (so their files' names sort in that order); each
// prints its file's path on a line of stdout. "kill" sends this process SIGKILL, without flushing.
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include "io/tfevents.h"

namespace {

using nlohmann::json;

double number(const json& v) { return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>(); }

void run_writer(const std::string& dir, const json& spec) {
  bertpt::io::TfEventsOptions options;
  if (spec.contains("purge_step")) options.purge_step = spec["purge_step"].get<int64_t>();
  bertpt::io::TfEventsWriter writer(dir, options);
  std::cout << writer.path() << std::endl;
  for (const json& op : spec.at("ops")) {
    std::string kind = op.at("op");
    if (kind == "scalar") {
      writer.add_scalar(op.at("tag").get<std::string>(), number(op.at("value")), op.at("step").get<int64_t>(),
                        op.at("wall_time").get<double>());
    } else if (kind == "text") {
      writer.add_text(op.at("tag").get<std::string>(), op.at("markdown").get<std::string>(),
                      op.at("step").get<int64_t>(), op.at("wall_time").get<double>());
    } else if (kind == "flush") {
      writer.flush();
    } else if (kind == "kill") {
      std::fflush(nullptr);
      kill(getpid(), SIGKILL);
    } else {
      throw std::runtime_error("unknown op " + kind);
    }
  }
  writer.close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: tfevents_fixture_writer SPEC.json\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    json spec = json::parse(in);
    for (const json& w : spec.at("writers")) run_writer(spec.at("dir").get<std::string>(), w);
  } catch (const std::exception& e) {
    std::cerr << "tfevents_fixture_writer: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
