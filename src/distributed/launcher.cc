#include "distributed/launcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "common/error.h"

namespace bertpt::distributed {

namespace {

volatile std::sig_atomic_t g_forward_signal = 0;

void on_signal(int sig) { g_forward_signal = sig; }

struct Worker {
  pid_t pid = -1;
  int rank = 0;
  bool running = false;
};

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void check_options(const LaunchOptions& o) {
  if (o.nproc_per_node < 1) throw BadInput("--nproc-per-node must be at least 1");
  if (o.nnodes < 1 || o.node_rank < 0 || o.node_rank >= o.nnodes) {
    throw BadInput("--node-rank " + std::to_string(o.node_rank) + " is not in [0, --nnodes " +
                   std::to_string(o.nnodes) + ")");
  }
  if (o.argv.empty()) throw Error(Error::Kind::Internal, "no worker command");
  if (o.nnodes > 1 && o.master_port == 0) {
    throw BadInput("a multi-node job needs --master-port (the same on every node)", "e.g. --master-port 29500");
  }
}

// While it lives, SIGINT and SIGTERM only set g_forward_signal (the supervising loop forwards them to
// the workers); the previous handlers come back when it dies.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    g_forward_signal = 0;
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  struct sigaction old_int_ = {};
  struct sigaction old_term_ = {};
};

// Where the workers of this node meet: the world size and the rendezvous port.
struct Rendezvous {
  int world = 0;
  int port = 0;
};

// In the forked child: becomes worker `local_rank` of this node and runs the worker command. Never returns.
[[noreturn]] void exec_worker(const LaunchOptions& o, int local_rank, const Rendezvous& rv, pid_t parent,
                              const std::vector<char*>& cargv) {
  // Its own process group, so a terminal's Ctrl-C reaches only the launcher, which forwards it
  // once; and it dies with the launcher.
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) std::_Exit(1);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::setenv("RANK", std::to_string(o.node_rank * o.nproc_per_node + local_rank).c_str(), 1);
  ::setenv("WORLD_SIZE", std::to_string(rv.world).c_str(), 1);
  ::setenv("LOCAL_RANK", std::to_string(local_rank).c_str(), 1);
  ::setenv("LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node).c_str(), 1);
  ::setenv("GROUP_RANK", std::to_string(o.node_rank).c_str(), 1);
  ::setenv("MASTER_ADDR", o.master_addr.c_str(), 1);
  ::setenv("MASTER_PORT", std::to_string(rv.port).c_str(), 1);
  ::setenv("BERTPT_LAUNCHED", "1", 1);
  ::execv(cargv[0], cargv.data());
  std::fprintf(stderr, "bertpt launcher: cannot run %s: %s\n", cargv[0], std::strerror(errno));
  std::_Exit(127);
}

// Forks this node's nproc_per_node workers, each in its own process group.
std::vector<Worker> start_workers(const LaunchOptions& o, const Rendezvous& rv) {
  std::vector<char*> cargv;
  for (const auto& a : o.argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  std::vector<Worker> workers(size_t(o.nproc_per_node));
  const pid_t parent = ::getpid();
  for (int i = 0; i < o.nproc_per_node; ++i) {
    pid_t pid = ::fork();
    if (pid < 0) throw Error(Error::Kind::Internal, std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) exec_worker(o, i, rv, parent, cargv);
    ::setpgid(pid, pid);  // also here, so the group exists before any signal_all (as shells do)
    workers[size_t(i)] = {pid, o.node_rank * o.nproc_per_node + i, true};
  }
  return workers;
}

// Waits for the workers: forwards the signals the launcher receives, and when one fails stops the
// others (SIGTERM, then SIGKILL after the grace period). Returns 0, or the first failure's exit code.
class Supervisor {
 public:
  Supervisor(std::vector<Worker> workers, double grace_seconds)
      : workers_(std::move(workers)), grace_seconds_(grace_seconds), running_(workers_.size()) {}

  int run() {
    while (running_ > 0) {
      if (int sig = g_forward_signal) {
        g_forward_signal = 0;
        signal_all(sig);  // the workers save a checkpoint and exit cleanly
      }
      int status = 0;
      pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid > 0) {
        reap(pid, status);
        continue;
      }
      if (stopping_ && std::chrono::steady_clock::now() > stop_deadline_) {
        signal_all(SIGKILL);
        stop_deadline_ = std::chrono::steady_clock::time_point::max();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return result_;
  }

 private:
  // Signals each running worker's whole process group: a worker that is a wrapper script (or
  // starts helpers) takes its children with it, instead of leaving them holding the job's output.
  void signal_all(int sig) {
    for (auto& w : workers_) {
      if (w.running) ::kill(-w.pid, sig);
    }
  }

  void reap(pid_t pid, int status) {
    for (auto& w : workers_) {
      if (w.pid != pid || !w.running) continue;
      w.running = false;
      --running_;
      int code = exit_code_of(status);
      if (code != 0 && result_ == 0 && !stopping_) {
        result_ = code;
        // Always said, even when quiet: the user must learn which rank failed.
        std::fprintf(stderr, "bertpt launcher: rank %d (pid %d) failed with %s %d; stopping the other workers\n",
                     w.rank, int(pid), WIFSIGNALED(status) ? "signal" : "exit code",
                     WIFSIGNALED(status) ? WTERMSIG(status) : code);
        stopping_ = true;
        signal_all(SIGTERM);
        stop_deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(grace_seconds_ * 1000));
      }
    }
  }

  std::vector<Worker> workers_;
  double grace_seconds_;
  size_t running_;
  int result_ = 0;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point stop_deadline_ = std::chrono::steady_clock::time_point::max();
};

}  // namespace

bool launched_by_bertpt() {
  const char* v = std::getenv("BERTPT_LAUNCHED");
  return v && *v == '1';
}

int find_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw BadInput(std::string("cannot open a socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  if (port <= 0) throw BadInput("cannot find a free TCP port for the rendezvous", "pass --master-port");
  return port;
}

int run_workers(const LaunchOptions& o) {
  check_options(o);
  const Rendezvous rv{o.nproc_per_node * o.nnodes, o.master_port ? o.master_port : find_free_port()};
  SignalForwarding forwarding;
  std::vector<Worker> workers = start_workers(o, rv);
  if (!o.quiet) {
    const int first = o.node_rank * o.nproc_per_node;
    std::fprintf(stderr, "bertpt launcher: started %d workers (ranks %d..%d of %d), rendezvous %s:%d\n",
                 o.nproc_per_node, first, first + o.nproc_per_node - 1, rv.world, o.master_addr.c_str(), rv.port);
  }
  return Supervisor(std::move(workers), o.grace_seconds).run();
}

}  // namespace bertpt::distributed
