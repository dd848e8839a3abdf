#include "launch/launcher.h"

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

#include "common/error.h"

namespace bertpt::launch {

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
  if (o.nproc_per_node < 1) throw BadInput("--nproc-per-node must be at least 1");
  if (o.nnodes < 1 || o.node_rank < 0 || o.node_rank >= o.nnodes) {
    throw BadInput("--node-rank " + std::to_string(o.node_rank) + " is not in [0, --nnodes " + std::to_string(o.nnodes) + ")");
  }
  if (o.argv.empty()) throw Error(Error::Kind::Internal, "no worker command");
  if (o.nnodes > 1 && o.master_port == 0) {
    throw BadInput("a multi-node job needs --master-port (the same on every node)", "e.g. --master-port 29500");
  }
  const int port = o.master_port ? o.master_port : find_free_port();
  const int world = o.nproc_per_node * o.nnodes;

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  g_forward_signal = 0;

  std::vector<char*> cargv;
  for (const auto& a : o.argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  std::vector<Worker> workers(size_t(o.nproc_per_node));
  const pid_t parent = ::getpid();
  for (int i = 0; i < o.nproc_per_node; ++i) {
    int rank = o.node_rank * o.nproc_per_node + i;
    pid_t pid = ::fork();
    if (pid < 0) throw Error(Error::Kind::Internal, std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      // The child: its own process group, so a terminal's Ctrl-C reaches only the launcher, which
      // forwards it once; and it dies with the launcher.
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) std::_Exit(1);
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      ::setenv("RANK", std::to_string(rank).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(i).c_str(), 1);
      ::setenv("LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node).c_str(), 1);
      ::setenv("GROUP_RANK", std::to_string(o.node_rank).c_str(), 1);
      ::setenv("MASTER_ADDR", o.master_addr.c_str(), 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      ::setenv("BERTPT_LAUNCHED", "1", 1);
      ::execv(cargv[0], cargv.data());
      std::fprintf(stderr, "bertpt launcher: cannot run %s: %s\n", cargv[0], std::strerror(errno));
      std::_Exit(127);
    }
    ::setpgid(pid, pid);  // also here, so the group exists before any signal_all (as shells do)
    workers[size_t(i)] = {pid, rank, true};
  }
  if (!o.quiet) {
    std::fprintf(stderr, "bertpt launcher: started %d workers (ranks %d..%d of %d), rendezvous %s:%d\n", o.nproc_per_node,
                 o.node_rank * o.nproc_per_node, o.node_rank * o.nproc_per_node + o.nproc_per_node - 1, world,
                 o.master_addr.c_str(), port);
  }

  // Signals each running worker's whole process group: a worker that is a wrapper script (or
  // starts helpers) takes its children with it, instead of leaving them holding the job's output.
  auto signal_all = [&](int sig) {
    for (auto& w : workers) {
      if (w.running) ::kill(-w.pid, sig);
    }
  };

  int result = 0;
  bool stopping = false;
  auto stop_deadline = std::chrono::steady_clock::time_point::max();
  size_t running = workers.size();
  while (running > 0) {
    if (int sig = g_forward_signal) {
      g_forward_signal = 0;
      signal_all(sig);  // the workers save a checkpoint and exit cleanly
    }
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (auto& w : workers) {
        if (w.pid != pid || !w.running) continue;
        w.running = false;
        --running;
        int code = exit_code_of(status);
        if (code != 0 && result == 0 && !stopping) {
          result = code;
          {  // always said: the user must learn which rank failed
            std::fprintf(stderr, "bertpt launcher: rank %d (pid %d) failed with %s %d; stopping the other workers\n", w.rank,
                         int(pid), WIFSIGNALED(status) ? "signal" : "exit code",
                         WIFSIGNALED(status) ? WTERMSIG(status) : code);
          }
          stopping = true;
          signal_all(SIGTERM);
          stop_deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(int64_t(o.grace_seconds * 1000));
        }
      }
      continue;
    }
    if (stopping && std::chrono::steady_clock::now() > stop_deadline) {
      signal_all(SIGKILL);
      stop_deadline = std::chrono::steady_clock::time_point::max();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return result;
}

}  // namespace bertpt::launch
