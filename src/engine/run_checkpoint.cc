#include "engine/run_checkpoint.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <ATen/ATen.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "io/safetensors.h"
#include "model/checkpoint.h"

namespace bertpt::engine {

namespace fs = std::filesystem;

std::string checkpoint_name(int64_t step) { return "checkpoint-" + std::to_string(step); }

namespace {

// The step of a "checkpoint-STEP" name, or -1.
int64_t step_of(const std::string& name) {
  const std::string prefix = "checkpoint-";
  if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size()) return -1;
  int64_t v = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || v > (int64_t(1) << 56)) return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

// CHECKPOINT/optimizer.safetensors: the AdamW moments in fp32, and the step count as metadata.
void write_optimizer_state(const std::string& path, const AdamW& optimizer) {
  io::SafetensorsWriter writer;
  writer.set_metadata("format", "bertpt-adamw");
  writer.set_metadata("format_version", "1");
  writer.set_metadata("step", std::to_string(optimizer.steps()));
  for (const auto& [name, t] : optimizer.state_tensors()) {
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    writer.add(name, io::DType::F32, shape, t.data_ptr(), t.nbytes());
  }
  writer.write(path);
}

}  // namespace

std::vector<std::pair<int64_t, std::string>> list_checkpoints(const std::string& run_dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(run_dir, ec)) {
    int64_t step = step_of(e.path().filename().string());
    if (step < 0 || !e.is_directory()) continue;
    if (!fs::exists(e.path() / kDoneMarker, ec)) continue;  // interrupted while writing
    out.emplace_back(step, e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<int64_t, std::string>> incomplete_checkpoints(const std::string& run_dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(run_dir, ec)) {
    const int64_t step = step_of(e.path().filename().string());
    if (step >= 0 && e.is_directory() && !fs::exists(e.path() / kDoneMarker, ec)) {
      out.emplace_back(step, e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool has_any_checkpoint(const std::string& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return false;
  for (const auto& e : fs::directory_iterator(run_dir, ec)) {
    if (step_of(e.path().filename().string()) >= 0) return true;
  }
  return false;
}

std::string save_checkpoint(const std::string& run_dir, int64_t step, const torch::nn::Module& model,
                            const model::BertConfig& config, const AdamW& optimizer, nlohmann::json state,
                            const std::string& tokenizer_dir, const std::string& model_card) {
  const fs::path final_dir = fs::path(run_dir) / checkpoint_name(step);
  // Dot names: list_checkpoints and HF tooling never mistake them for a checkpoint.
  const std::string pid = std::to_string(::getpid());
  const fs::path tmp = fs::path(run_dir) / ("." + checkpoint_name(step) + ".tmp." + pid);
  const fs::path aside = fs::path(run_dir) / ("." + checkpoint_name(step) + ".old." + pid);
  auto fill = [&](const std::string& dir) {
    model::write_model_files(dir, model, config, at::kFloat);
    // The tokenizer next to the weights: pipeline("fill-mask", model=dir) needs both.
    model::copy_tokenizer_files(tokenizer_dir, dir);
    write_optimizer_state((fs::path(dir) / "optimizer.safetensors").string(), optimizer);
    if (!model_card.empty()) write_file_atomic((fs::path(dir) / "README.md").string(), model_card);
    state["format"] = kTrainerStateFormat;
    state["format_version"] = kTrainerStateVersion;
    state["step"] = step;
    state["optimizer_steps"] = optimizer.steps();
    write_file_atomic((fs::path(dir) / "trainer_state.json").string(), state.dump(2) + "\n");
    write_file_atomic((fs::path(dir) / kDoneMarker).string(), "step " + std::to_string(step) + "\n");
  };
  // Saving the step we resumed from again replaces it: the directory is always one complete copy.
  write_directory_atomic(final_dir.string(), tmp.string(), aside.string(), fill, "check free disk space");
  return final_dir.string();
}

void remove_checkpoints(const std::string& run_dir) {
  std::error_code ec;
  std::vector<fs::path> found;  // collected first: no removal while the directory is being iterated
  for (const auto& e : fs::directory_iterator(run_dir, ec)) {
    if (e.path().filename().string().rfind("checkpoint-", 0) == 0) found.push_back(e.path());
  }
  for (const auto& dir : found) fs::remove_all(dir, ec);
}

void prune_checkpoints(const std::string& run_dir, int64_t keep, const std::string& protect) {
  if (keep <= 0) return;
  auto all = list_checkpoints(run_dir);
  int64_t excess = int64_t(all.size()) - keep;
  std::error_code ec;
  for (const auto& [step, path] : all) {
    if (excess <= 0) break;
    if (fs::equivalent(path, protect, ec)) continue;
    // Remove DONE first: a crash in the middle of the deletion leaves an incomplete directory.
    fs::remove(fs::path(path) / kDoneMarker, ec);
    fs::remove_all(path, ec);
    --excess;
  }
}

nlohmann::json read_trainer_state(const std::string& dir, const std::vector<std::string>& task_fields) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw BadInput("checkpoint " + dir + " does not exist", "pass RUN/checkpoint-STEP, or --resume auto");
  }
  if (!fs::exists(fs::path(dir) / kDoneMarker, ec)) {
    throw BadInput("checkpoint " + dir + " is incomplete (no DONE marker: the run was interrupted while saving it)",
                   "resume from an earlier checkpoint, or --resume auto");
  }
  const std::string path = (fs::path(dir) / "trainer_state.json").string();
  return parse_trainer_state(read_file(path), path, task_fields);
}

std::vector<std::pair<std::string, at::Tensor>> read_optimizer_state(const std::string& dir) {
  const std::string path = (fs::path(dir) / "optimizer.safetensors").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) throw BadInput(path + " is missing", "the checkpoint is incomplete; resume from another");
  io::SafetensorsFile file = io::SafetensorsFile::open(path);
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& t : file.tensors()) {
    if (t.dtype != io::DType::F32) throw BadInput(path + ": tensor " + t.name + " is not F32");
    at::Tensor x = at::empty(t.shape, at::kFloat);
    std::memcpy(x.data_ptr(), t.data, t.nbytes);  // out of the mapping, which may be unaligned
    out.emplace_back(t.name, x);
  }
  return out;
}

void truncate_metrics(const std::string& path, int64_t step) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return;
  std::istringstream in(read_file(path));
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      auto j = nlohmann::json::parse(line);
      if (j.value("step", int64_t(0)) > step) continue;
    } catch (const nlohmann::json::exception&) {
      continue;  // a line cut by a crash
    }
    kept += line + "\n";
  }
  write_file_atomic(path, kept);
}

}  // namespace bertpt::engine
