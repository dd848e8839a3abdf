// The numeric precision of a run, parsed in one place for every command that runs the model.
#pragma once

#include <string>

namespace bertpt::engine {

enum class Precision {
  Fp32,  // everything in fp32
  Bf16,  // autocast to bf16 on the device; LayerNorm, softmax and the loss stay in fp32
};

// "bf16" or "fp32"; BadInput naming `flag` otherwise.
Precision parse_precision(const std::string& text, const std::string& flag = "--precision");

inline bool is_bf16(const std::string& text) { return parse_precision(text) == Precision::Bf16; }

}  // namespace bertpt::engine
