// A request to stop, made by a stop signal (SIGINT, SIGTERM: cli/stop_signals.h installs the handler
// that makes it) and asked by the waits that would otherwise outlast it: a FIFO opened before its writer
// came, a stream that gives nothing yet. Such a wait throws Interrupted; it unwinds like any error
// (temporary files are removed on the way) up to src/cli, which ends the process by the signal.
#pragma once

#include <stdexcept>
#include <string>

namespace bertpt {

// Records the signal that asks to stop. Async-signal-safe: the handler calls it.
void request_stop(int signal) noexcept;
// Forgets a request (a new handler starts clean; tests).
void clear_stop_request() noexcept;
// The signal that asked to stop, 0 when none did. Safe from any thread.
int stop_signal() noexcept;

// What a wait throws when a stop was requested; not an Error: the command ends by the signal, not by
// an exit code of its own. what() says what was waited for.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& waiting_for) : std::runtime_error(waiting_for), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// "SIGINT", "SIGTERM", "SIGUSR1", else "signal N".
std::string signal_name(int signal);

}  // namespace bertpt
