// See tcp.h.
#include "net/tcp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::net {

Address resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw UsageError("cannot resolve host '" + host + "': " + gai_strerror(rc));
  }
  Address address;
  std::memcpy(&address.storage, found->ai_addr, found->ai_addrlen);
  address.length = found->ai_addrlen;
  char numeric[INET6_ADDRSTRLEN] = {};
  if (found->ai_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr, numeric,
              sizeof numeric);
    address.text = std::string("[") + numeric + "]:" + service;
  } else {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, numeric,
              sizeof numeric);
    address.text = std::string(numeric) + ":" + service;
  }
  freeaddrinfo(found);
  return address;
}

Address local_address(const std::string& text) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* found = nullptr;
  if (getaddrinfo(text.c_str(), "0", &hints, &found) != 0 || found == nullptr) {
    throw UsageError("'" + text + "' is not an IP address (a source is a local address, such as " +
                     "127.0.0.2)");
  }
  Address address;
  std::memcpy(&address.storage, found->ai_addr, found->ai_addrlen);
  address.length = found->ai_addrlen;
  address.text = text;
  freeaddrinfo(found);
  return address;
}

int start_connect(const Address& address, const Address* source) {
  int fd = socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (source != nullptr) {
    // Without IP_BIND_ADDRESS_NO_PORT, bind() would take an ephemeral port for the address alone
    // (about 28,000 a source); with it the port is chosen at connect() for the 4-tuple.
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    sockaddr_storage local = source->storage;
    if (local.ss_family == AF_INET) reinterpret_cast<sockaddr_in*>(&local)->sin_port = 0;
    if (local.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&local)->sin6_port = 0;
    if (bind(fd, reinterpret_cast<const sockaddr*>(&local), source->length) != 0) {
      int error = errno;
      close(fd);
      return -error;
    }
  }
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.length) != 0 &&
      errno != EINPROGRESS) {
    int error = errno;
    close(fd);
    return -error;
  }
  return fd;
}

int finish_connect(int fd) {
  int error = 0;
  socklen_t length = sizeof error;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
  return error;
}

void check_reachable(const Address& address, int64_t timeout_ns, const Address* source) {
  int fd = start_connect(address, source);
  int error = fd < 0 ? -fd : 0;
  if (fd >= 0) {
    pollfd p{fd, POLLOUT, 0};
    int waited = poll(&p, 1, static_cast<int>(timeout_ns / kNsPerMs));
    error = waited == 0 ? ETIMEDOUT : waited < 0 ? errno : finish_connect(fd);
    close(fd);
  }
  if (source != nullptr && error == EADDRNOTAVAIL) {
    throw UsageError("cannot connect from " + source->text +
                     ": it is not an address of this machine");
  }
  if (source != nullptr && error == EAFNOSUPPORT) {
    throw UsageError("cannot connect from " + source->text + " to " + address.text +
                     ": not the same address family");
  }
  if (error != 0) {
    throw UsageError("cannot connect to " + address.text +
                     (source != nullptr ? " from " + source->text : std::string()) + ": " +
                     std::strerror(error));
  }
}

int64_t raise_fd_limit(int64_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (static_cast<int64_t>(limit.rlim_cur) >= wanted) return static_cast<int64_t>(limit.rlim_cur);
  const bool unlimited = limit.rlim_max == RLIM_INFINITY;
  const rlim_t target = unlimited || static_cast<int64_t>(limit.rlim_max) >= wanted
                            ? static_cast<rlim_t>(wanted)
                            : limit.rlim_max;
  rlimit raised = limit;
  raised.rlim_cur = target;
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return static_cast<int64_t>(target);
  return static_cast<int64_t>(limit.rlim_cur);
}

void ensure_fd_limit(int64_t needed) {
  if (raise_fd_limit(needed) >= needed) return;
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  throw UsageError("this needs " + std::to_string(needed) + " file descriptors but only " +
                   std::to_string(limit.rlim_max) +
                   " can be opened (ulimit -n): lower -c / --max-connections");
}

}  // namespace proofload::net
