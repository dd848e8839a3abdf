// Numbers as Hugging Face tokenizers reads them from tokenizer.json. Its JSON parser (Rust's
// serde_json, built without the float_roundtrip feature) does not round a decimal number
// correctly: it reads the digits as one 64-bit integer, converts that to a double and multiplies or
// divides by a double power of ten, rounding twice. A Unigram score read that way can be one step
// (ulp) away from the number written, and where two segmentations tie to the last bit that step
// decides which one HF's Viterbi keeps. bertpt reads the scores as HF does.
#pragma once

namespace bertpt::tokenizer {

// The double serde_json gives for the JSON number whose shortest round-trip spelling is that of
// `value` (how tokenizers writes every float: ryu's shortest form). `value` itself is what a
// correctly rounding parser (nlohmann::json) read.
double serde_json_f64(double value);

}  // namespace bertpt::tokenizer
