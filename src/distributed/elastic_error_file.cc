#include "distributed/elastic_error_file.h"

#include <cstdlib>
#include <ctime>
#include <fstream>

#include <nlohmann/json.hpp>

namespace bertpt::distributed {

void write_elastic_error_file(const std::string& message) {
  const char* path = std::getenv("TORCHELASTIC_ERROR_FILE");
  if (!path || !*path) return;
  // Without a py_callstack (there is no Python stack), torchrun's summary shows `message`.
  const nlohmann::json data = {
      {"message", {{"message", message}, {"extraInfo", {{"timestamp", std::to_string(std::time(nullptr))}}}}}};
  std::ofstream out(path, std::ios::trunc);
  out << data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace bertpt::distributed
