// The JSONL field extractor on arbitrary (repaired) lines: it must never crash or read out of
// bounds, and a Found value must be valid UTF-8.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "text/json_field.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string line;
  bertpt::text::RepairCounts counts;
  bertpt::text::repair_utf8(std::string_view(reinterpret_cast<const char*>(data), size), line, counts);
  std::string out;
  auto r = bertpt::text::extract_json_string_field(line, "text", out);
  if (r.status == bertpt::text::JsonFieldStatus::Found) {
    std::string clean;
    bertpt::text::RepairCounts c2;
    bertpt::text::repair_utf8(out, clean, c2);
    if (c2.invalid != 0) std::abort();
  }
  return 0;
}
