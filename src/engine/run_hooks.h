// The hooks every training task takes (engine/training_run.h): the CLI's signals and output, the
// tests' fault injection. No LibTorch in this header.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace bertpt::engine {

class Collectives;

struct RunHooks {
  Collectives* collectives = nullptr;                  // nullptr: one process
  std::function<bool()> stop_requested;                // polled before every step (SIGINT/SIGTERM/SIGUSR1)
  std::function<void(const std::string&)> on_message;  // checkpoints, resume, warnings (main rank)
  std::function<void(const nlohmann::json&)> on_log;   // every metrics.jsonl record, as written
  std::function<bool(int64_t step)> inject_nonfinite;  // test hook: poison the loss of this 0-based step
  std::function<void(int64_t step)> during_forward;    // test hook: runs inside each micro-batch's forward
};

}  // namespace bertpt::engine
