// The network side of the rendezvous, so that a job uses the address it was given and no other:
// - rank 0's store socket, bound to MASTER_ADDR alone. c10d's TCPStore, left to itself, listens on
//   every interface of node 0 (0.0.0.0 / ::); handed this already listening socket
//   (TCPStoreOptions::masterListenFd) it serves only the address the other ranks were told to use —
//   127.0.0.1 for a job on one node;
// - the local address each rank's Gloo device binds to: the one this machine uses to reach
//   MASTER_ADDR. Gloo's default device takes the address the host name resolves to, which other nodes
//   may not reach (a 127.0.1.1 line in /etc/hosts, a container's or namespace's own name).
#pragma once

#include <string>

namespace bertpt::distributed {

// A listening TCP socket (close-on-exec) bound to `addr` (a numeric address or a host name of this
// machine) and `port`. Throws BadInput naming both when `addr` does not resolve or is not an address
// of this machine, or when the port is in use.
int listen_on(const std::string& addr, int port);

// The numeric address of this machine from which it reaches `addr`:`port` (the kernel's route
// choice, by connecting a UDP socket: nothing is sent). Throws BadInput naming `addr` when there is
// no route.
std::string local_address_to(const std::string& addr, int port);

}  // namespace bertpt::distributed
