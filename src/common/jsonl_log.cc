#include "common/jsonl_log.h"

#include "common/error.h"

namespace bertpt {

JsonlLog::JsonlLog(const std::string& path, bool enabled) {
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
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace bertpt
