#include "common/stop_request.h"

#include <atomic>
#include <csignal>

namespace bertpt {

namespace {

std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

}  // namespace

void request_stop(int signal) noexcept { g_stop_signal.store(signal, std::memory_order_relaxed); }

void clear_stop_request() noexcept { g_stop_signal.store(0, std::memory_order_relaxed); }

int stop_signal() noexcept { return g_stop_signal.load(std::memory_order_relaxed); }

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(signal);
  }
}

}  // namespace bertpt
