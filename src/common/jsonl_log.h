// An append-only JSON Lines log (a run's metrics.jsonl): one object per line, flushed at once so a
// reader (`bertpt plot`, tail -f) sees every record as soon as it is written.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace bertpt {

class JsonlLog {
 public:
  // Opens `path` for appending; a disabled log (another rank's) writes nothing. BadInput when the
  // file cannot be opened.
  JsonlLog(const std::string& path, bool enabled);
  ~JsonlLog();
  JsonlLog(const JsonlLog&) = delete;
  JsonlLog& operator=(const JsonlLog&) = delete;

  // BadInput naming the file when the write fails (a full disk).
  void write(const nlohmann::json& record);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace bertpt
