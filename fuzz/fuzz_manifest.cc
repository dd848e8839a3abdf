// DATA/manifest.json of arbitrary bytes: io::read_manifest must refuse anything malformed with a
// BadInput naming the file (never another exception, a crash or a sanitizer report), and what it
// accepts must survive a round trip through the writer unchanged.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "io/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string dir = [] {
    char tmpl[] = "/tmp/bertpt-fuzz-manifest-XXXXXX";
    if (!::mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  const std::string path = bertpt::io::manifest_path(dir);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  bertpt::io::Manifest m;
  try {
    m = bertpt::io::read_manifest(dir);
  } catch (const bertpt::BadInput& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();  // the error names the file
    return 0;
  }
  const nlohmann::json written = m.to_json();
  const bertpt::io::Manifest again = bertpt::io::Manifest::from_json(written, path);
  if (again.to_json() != written) std::abort();
  return 0;
}
