#include "engine/precision.h"

#include "common/error.h"

namespace bertpt::engine {

Precision parse_precision(const std::string& text, const std::string& flag) {
  if (text == "bf16") return Precision::Bf16;
  if (text == "fp32") return Precision::Fp32;
  throw BadInput(flag + " must be bf16 or fp32, not '" + text + "'",
                 "bf16 is the fast default on CPUs and GPUs with bf16 units; fp32 to rule out precision");
}

}  // namespace bertpt::engine
