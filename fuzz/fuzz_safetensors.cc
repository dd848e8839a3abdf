// A safetensors file of arbitrary bytes (the 8-byte header length, the JSON header, the data):
// SafetensorsFile must refuse anything malformed with a BadInput naming it, and every tensor of a
// file it accepts must lie inside the data section.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz/model.safetensors";
  try {
    const bertpt::io::SafetensorsFile file = bertpt::io::SafetensorsFile::from_buffer(name, data, size);
    for (const bertpt::io::TensorView& t : file.tensors()) {
      const uint8_t* p = t.data;
      if (p < data || p + t.nbytes > data + size) std::abort();
      uint64_t sum = 0;  // touch every byte: ASan reports a view past the buffer
      for (size_t i = 0; i < t.nbytes; ++i) sum += p[i];
      if (sum == 1) (void)file.find(t.name);
    }
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(name) == std::string::npos) std::abort();  // the error names the file
  }
  return 0;
}
