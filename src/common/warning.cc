#include "common/warning.h"

#include <cstdio>
#include <mutex>

namespace bertpt {

namespace {

std::mutex g_mutex;
std::vector<std::string>* g_captured = nullptr;  // while a WarningCapture exists

}  // namespace

void warn(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_captured) {
    g_captured->push_back(message);
    return;
  }
  std::fprintf(stderr, "bertpt: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

WarningCapture::WarningCapture() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_captured = new std::vector<std::string>();
}

WarningCapture::~WarningCapture() {
  std::lock_guard<std::mutex> lock(g_mutex);
  delete g_captured;
  g_captured = nullptr;
}

std::vector<std::string> WarningCapture::messages() const {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_captured ? *g_captured : std::vector<std::string>{};
}

}  // namespace bertpt
