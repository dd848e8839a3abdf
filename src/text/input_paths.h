// Turns one --input argument into the files it names: a file, a directory (walked recursively, hidden
// entries skipped, sorted so the order never depends on the filesystem) or a glob pattern; or one
// stream: `-` (standard input), a FIFO or process substitution (`<(zcat a.gz)`), a character device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bertpt::text {

struct InputFile {
  std::string path;
  uint64_t size = 0;    // on-disk bytes (0 for a stream)
  bool stream = false;  // read once, front to back: its size is unknown and it cannot seek
};

// The path standard input is read through when the input is `-`.
inline constexpr const char* kStdinPath = "/dev/stdin";

// Throws BadInput naming `input` when it does not exist or matches nothing. A stream counts only when
// named by itself: globs and directories give regular files (a FIFO matched by a glob is refused).
std::vector<InputFile> expand_input(const std::string& input);

}  // namespace bertpt::text
