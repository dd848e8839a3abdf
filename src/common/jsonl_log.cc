#include "common/jsonl_log.h"

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace bertpt {

JsonlLog::JsonlLog(const std::string& path, bool enabled) : path_(path) {
  if (!enabled) return;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw BadInput("cannot open " + path + " for writing", "check that the output directory is writable");
}

JsonlLog::~JsonlLog() {
  if (file_) std::fclose(file_);
}

void JsonlLog::write(const nlohmann::json& record) {
  if (!file_) return;
  const std::string line = record.dump() + "\n";
  // A full disk must stop the run, not silently end its record (the checkpoints stay valid).
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    throw BadInput("cannot write " + path_ + " (" + std::strerror(errno) + ")", "is the disk full?");
  }
}

}  // namespace bertpt
