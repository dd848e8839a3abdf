#pragma once

#include <string>

namespace bertpt::cli {

// "bertpt 0.1.0 (LibTorch 1.13.0)" — or "(built without LibTorch)".
std::string version_string();

}  // namespace bertpt::cli
