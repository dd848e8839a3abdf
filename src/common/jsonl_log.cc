#include "common/jsonl_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace bertpt {

JsonlLog::JsonlLog(const std::string& path, bool enabled) : path_(path) {
  if (!enabled) return;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw BadInput("cannot open " + path + " for writing", "check that the output directory is writable");
  std::setvbuf(file_, nullptr, _IONBF, 0);  // each record goes to the file in write(), none is left buffered
}

JsonlLog::~JsonlLog() {
  if (file_) std::fclose(file_);
}

void JsonlLog::write(const nlohmann::json& record) {
  if (!file_) return;
  const std::string line = record.dump() + "\n";
  struct stat before {};
  const bool sized = ::fstat(::fileno(file_), &before) == 0;
  // A full disk must stop the run, not silently end its record (the checkpoints stay valid), and the
  // part of the line that did reach the disk is cut off again: the log ends with a whole record.
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    const int error = errno;
    if (sized && ::ftruncate(::fileno(file_), before.st_size) == 0) std::clearerr(file_);
    throw BadInput("cannot write " + path_ + " (" + std::strerror(error) + ")", "is the disk full?");
  }
}

}  // namespace bertpt
