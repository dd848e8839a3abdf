#include "engine/step_trace.h"

#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include <torch/csrc/autograd/profiler_kineto.h>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::engine {

namespace {

namespace profiler = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

std::set<ActivityType> activities(const c10::Device& device) {
  if (device.is_cuda()) return {ActivityType::CPU, ActivityType::CUDA};
  return {ActivityType::CPU};
}

}  // namespace

StepTrace::StepTrace(std::string path, const c10::Device& device) : path_(std::move(path)) {
  const ProfilerConfig config(ProfilerState::KINETO);
  profiler::prepareProfiler(config, activities(device));
  profiler::enableProfiler(config, activities(device));
  recording_ = true;
}

StepTrace::~StepTrace() {
  if (recording_) profiler::disableProfiler();
}

void StepTrace::save() {
  recording_ = false;
  const std::unique_ptr<profiler::ProfilerResult> result = profiler::disableProfiler();
  // A temporary name of common/atomic_file.h's: a run's cleanup recognises one a killed run left.
  const std::string tmp = temp_name_for(path_);
  result->save(tmp);
  std::error_code ec;
  std::filesystem::rename(tmp, path_, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw BadInput(path_ + ": cannot write the profile (" + why + ")");
  }
}

}  // namespace bertpt::engine
