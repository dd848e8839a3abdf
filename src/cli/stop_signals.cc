#include "cli/stop_signals.h"

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace bertpt::cli {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
struct sigaction g_old_int = {};
struct sigaction g_old_term = {};
struct sigaction g_old_usr1 = {};

extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
  const char msg[] = "\nbertpt: signal received: finishing this step and saving a checkpoint (again to abort)\n";
  ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)n;
}

}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a signal must not fail a blocking read or write
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGUSR1, &sa, &g_old_usr1);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGUSR1, &g_old_usr1, nullptr);
}

bool StopSignals::requested() { return g_stop_signal != 0; }

}  // namespace bertpt::cli
