#include "cli/stop_signals.h"

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <utility>

#include "common/stop_request.h"

namespace bertpt::cli {

namespace {

const char* g_announce = nullptr;  // set before the handler is installed, read only by it

extern "C" void on_stop_signal(int sig) {
  if (stop_signal()) {  // a second signal: at once
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  request_stop(sig);  // also ends the waits for input (common/stop_request.h)
  if (g_announce) {
    ssize_t n = ::write(STDERR_FILENO, g_announce, std::strlen(g_announce));
    (void)n;
  }
}

}  // namespace

StopSignalOptions training_stop_signals() {
  return {"\nbertpt: signal received: finishing this step and saving a checkpoint (again to abort)\n", true, false};
}

StopSignals::StopSignals(StopSignalOptions options) : usr1_(options.usr1) {
  clear_stop_request();
  g_announce = options.announce;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a signal must not fail a blocking read or write
  for (auto [sig, old] :
       {std::pair{SIGINT, &old_int_}, std::pair{SIGTERM, &old_term_}, std::pair{SIGUSR1, &old_usr1_}}) {
    if (sig == SIGUSR1 && !usr1_) continue;
    sigaction(sig, nullptr, old);
    if (!(options.keep_ignored && old->sa_handler == SIG_IGN)) sigaction(sig, &sa, nullptr);
  }
}

StopSignals::~StopSignals() { restore(); }

void StopSignals::restore() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  if (usr1_) sigaction(SIGUSR1, &old_usr1_, nullptr);
}

bool StopSignals::requested() { return stop_signal() != 0; }

int StopSignals::signal_number() { return stop_signal(); }

void StopSignals::end_by_signal() {
  restore();
  end_process_by_signal(stop_signal());
}

void end_process_by_signal(int sig) {
  std::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  std::raise(sig);
  ::_exit(128 + sig);
}

}  // namespace bertpt::cli
