// The defaults of the step options every training task shares (train, finetune, bench, the step
// runner itself), written once. Plain C++: the options headers include it without LibTorch.
#pragma once

#include <cstdint>

namespace bertpt::engine {

inline constexpr double kDefaultMaxGradNorm = 1.0;  // clip the global gradient norm to this (<= 0: no clipping)
inline constexpr int64_t kDefaultMaxNanSteps = 10;  // consecutive non-finite steps before the run gives up

}  // namespace bertpt::engine
