// config.json of arbitrary bytes: BertConfig::from_json must refuse anything malformed or out of
// bounds with a BadInput naming the file (never another exception, a crash or a sanitizer report),
// and a config it accepts must pass validate() and survive a round trip through to_json unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "model/bert_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz/config.json";
  bertpt::model::BertConfig config;
  try {
    config = bertpt::model::BertConfig::from_json(text, source);
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(source) == std::string::npos) std::abort();  // the error names the file
    return 0;
  }
  config.validate(source);  // accepted means valid: a BadInput here escapes and fails the run
  const std::string written = config.to_json();
  if (bertpt::model::BertConfig::from_json(written, source).to_json() != written) std::abort();
  return 0;
}
