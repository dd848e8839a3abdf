#include "distributed/rendezvous_net.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace bertpt::distributed {

int listen_on(const std::string& addr, int port) {
  const std::string where = addr + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    throw BadInput("rank 0 cannot listen on " + where + ": the address does not resolve (" + ::gai_strerror(rc) + ")",
                   "--master-addr / MASTER_ADDR must be an address of the node running rank 0");
  }
  std::string error;
  for (const addrinfo* a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // a restarted job need not wait for TIME_WAIT
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  throw BadInput("rank 0 cannot listen on " + where + ": " + error,
                 "--master-addr must be an address of this node, and the port free (choose another with "
                 "--master-port / MASTER_PORT)");
}

std::string local_address_to(const std::string& addr, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    throw BadInput("MASTER_ADDR " + addr + " does not resolve (" + ::gai_strerror(rc) + ")",
                   "--master-addr / MASTER_ADDR must name the node running rank 0");
  }
  std::string error = "no address";
  for (const addrinfo* a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    char text[INET6_ADDRSTRLEN] = {};
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
        ::getnameinfo(reinterpret_cast<sockaddr*>(&local), len, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0) {
      ::close(fd);
      ::freeaddrinfo(found);
      return text;
    }
    error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  throw BadInput("no route from this machine to MASTER_ADDR " + addr + " (" + error + ")",
                 "--master-addr / MASTER_ADDR must be reachable from every node");
}

}  // namespace bertpt::distributed
