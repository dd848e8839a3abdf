// tokenizer.json of arbitrary bytes: parse_tokenizer_json must refuse anything malformed with a
// BadInput naming the file (never another exception, a crash or a sanitizer report); a tokenizer it
// accepts must encode text into ids below its vocabulary size and decode them back without failing.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz/tokenizer.json";
  try {
    const bertpt::tokenizer::Tokenizer tok = bertpt::tokenizer::parse_tokenizer_json(text, source);
    std::vector<uint32_t> ids;
    for (std::string_view sample : {"Hello, world! The cat sat.", "unaffable [MASK] héllo 你好", ""}) {
      ids.clear();
      tok.encode(sample, ids);
      for (uint32_t id : ids) {
        if (id >= tok.vocab_size()) std::abort();  // check_ids_in_vocabulary must have refused the file
      }
      (void)tok.decode(ids, false);
    }
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(source) == std::string::npos) std::abort();  // the error names the file
  }
  return 0;
}
