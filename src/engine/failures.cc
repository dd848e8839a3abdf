#include "engine/failures.h"

#include <new>

#include "common/error.h"

namespace bertpt::engine {

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos || what.find("not enough memory") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos;
}

void throw_out_of_memory(int64_t per_device_batch_size, const std::string& device) {
  throw BadInput("out of memory at --per-device-batch-size " + std::to_string(per_device_batch_size) + " on " + device,
                 "lower --per-device-batch-size and raise --grad-accum by the same factor: the global batch (and the "
                 "result) stays the same");
}

void throw_diverged(int64_t streak, int64_t step) {
  throw BadInput("training diverged: the loss or gradient was not finite for " + std::to_string(streak) +
                     " steps in a row (up to step " + std::to_string(step) + ")",
                 "lower --learning-rate, add --warmup-steps, or use --precision fp32; resume from the last checkpoint");
}

}  // namespace bertpt::engine
