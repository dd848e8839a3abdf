// Turns one --input argument into the files it names: a file, a directory (walked recursively, hidden
// entries skipped, sorted so the order never depends on the filesystem) or a glob pattern.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bertpt::text {

struct InputFile {
  std::string path;
  uint64_t size = 0;  // on-disk bytes
};

// Throws BadInput naming `input` when it does not exist or matches nothing.
std::vector<InputFile> expand_input(const std::string& input);

}  // namespace bertpt::text
