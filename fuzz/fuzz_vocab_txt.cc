// vocab.txt of arbitrary bytes: load_tokenizer must refuse it with a BadInput naming the file or
// give a tokenizer whose ids lie below its vocabulary size (never another exception or a crash).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string dir = [] {
    char tmpl[] = "/tmp/bertpt-fuzz-vocab-XXXXXX";
    if (!::mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  const std::string path = dir + "/vocab.txt";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const bertpt::tokenizer::Tokenizer tok = bertpt::tokenizer::load_tokenizer(dir);
    std::vector<uint32_t> ids;
    tok.encode("Hello, world! unaffable [UNK] [CLS] 你好", ids);
    for (uint32_t id : ids) {
      if (id >= tok.vocab_size()) std::abort();
    }
    (void)tok.decode(ids, true);
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(dir) == std::string::npos) std::abort();  // the error names the file
  }
  return 0;
}
