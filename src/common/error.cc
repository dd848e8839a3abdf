#include "common/error.h"

namespace bertpt {

std::string at(const std::string& path, unsigned long long line) { return path + ":" + std::to_string(line); }

}  // namespace bertpt
