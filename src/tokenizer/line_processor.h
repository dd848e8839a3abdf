// Line-parallel processing of a text stream, as `bertpt tokenizer encode|decode` runs it: the input
// (a file in any compression the corpus readers know, or stdin) is read in batches of lines that
// several threads process at once, and each line's output is written in input order, to a file
// renamed into place at the end (AtomicFile) or to stdout.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/atomic_file.h"
#include "text/byte_source.h"

namespace bertpt::tokenizer {

// A file (decompressed as the corpus readers do) or stdin for "-".
class LineInput {
 public:
  explicit LineInput(const std::string& path);
  // Up to `cap` bytes into `buf`; 0 at the end. Throws BadInput on a read error.
  size_t read(char* buf, size_t cap);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<text::ByteSource> source_;
};

// A file written atomically (in place only after commit()) or stdout for "-".
class LineOutput {
 public:
  explicit LineOutput(const std::string& path);
  void write(std::string_view s);
  void commit();

 private:
  std::unique_ptr<AtomicFile> file_;
};

// work(line, out, thread): appends the output of one line (without its '\n') to `out`; called from
// `thread` in [0, threads), so per-thread state can be indexed by it. Throwing stops the run.
using LineWork = std::function<void(std::string_view line, std::string& out, unsigned thread)>;

// Runs `work` over every line of `in`, `threads` lines at a time in parallel, and writes each line's
// output followed by '\n' to `out` in input order. Returns the number of lines.
uint64_t process_lines(LineInput& in, LineOutput& out, unsigned threads, const LineWork& work);

}  // namespace bertpt::tokenizer
