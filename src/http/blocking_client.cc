// See blocking_client.h. Non-blocking sockets and poll(): a server that accepts and never answers
// costs the deadline, never more.
#include "http/blocking_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/unique_fd.h"
#include "common/usage_error.h"

namespace proofload::http {
namespace {

// Waits for `events` on fd until the deadline: 1 when ready, 0 at the deadline, -errno on error.
int wait_for(int fd, short events, int64_t deadline_ns) {
  while (true) {
    const int64_t left_ns = deadline_ns - monotonic_ns();
    if (left_ns <= 0) return 0;
    pollfd p{fd, events, 0};
    // Rounded up so that a wait never ends a little before the deadline and spins.
    const int ready = ::poll(&p, 1, static_cast<int>((left_ns + kNsPerMs - 1) / kNsPerMs));
    if (ready > 0) return 1;
    if (ready < 0 && errno != EINTR) return -errno;
  }
}

Exchange failed(Exchange::Failure failure, Exchange::Stage stage, int error_number = 0,
                int64_t bytes_read = 0) {
  Exchange out;
  out.failure = failure;
  out.stage = stage;
  out.error_number = error_number;
  out.bytes_read = bytes_read;
  return out;
}

// A wait's outcome as the exchange's failure (or kNone when ready).
Exchange::Failure wait_failure(int waited) {
  return waited > 0    ? Exchange::Failure::kNone
         : waited == 0 ? Exchange::Failure::kTimedOut
                       : Exchange::Failure::kPoll;
}

}  // namespace

std::vector<SocketAddress> resolve_addresses(const std::string& host, uint16_t port) {
  std::vector<SocketAddress> addresses;
  SocketAddress literal;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&literal.storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&literal.storage);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    literal.length = sizeof(sockaddr_in);
    return {literal};
  }
  if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    literal.length = sizeof(sockaddr_in6);
    return {literal};
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw UsageError("cannot resolve host '" + host + "': " + ::gai_strerror(rc));
  }
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress address;
    std::memcpy(&address.storage, ai->ai_addr, ai->ai_addrlen);
    address.length = ai->ai_addrlen;
    addresses.push_back(address);
  }
  ::freeaddrinfo(found);
  if (addresses.empty()) throw UsageError("cannot resolve host '" + host + "': no address");
  return addresses;
}

Exchange exchange(std::span<const SocketAddress> addresses, std::string_view request,
                  ResponseParser& parser, int64_t deadline_ns, const ExchangeLimits& limits) {
  using Failure = Exchange::Failure;
  using Stage = Exchange::Stage;
  UniqueFd socket;
  Exchange refused = failed(Failure::kConnect, Stage::kConnecting, ECONNREFUSED);
  bool connected = false;
  for (const SocketAddress& address : addresses) {
    socket.reset(
        ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (socket.get() < 0) return failed(Failure::kSocket, Stage::kConnecting, errno);
    int one = 1;
    ::setsockopt(socket.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(socket.get(), reinterpret_cast<const sockaddr*>(&address.storage),
                  address.length) != 0) {
      if (errno != EINPROGRESS) {
        refused.error_number = errno;
        continue;  // the next address may accept
      }
      const int waited = wait_for(socket.get(), POLLOUT, deadline_ns);
      if (waited <= 0) return failed(wait_failure(waited), Stage::kConnecting, -waited);
      int error = 0;
      socklen_t length = sizeof error;
      if (::getsockopt(socket.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
      if (error != 0) {
        refused.error_number = error;
        continue;
      }
    }
    connected = true;
    break;
  }
  if (!connected) return refused;

  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n =
        ::send(socket.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return failed(Failure::kSend, Stage::kSending, errno);
    }
    const int waited = wait_for(socket.get(), POLLOUT, deadline_ns);
    if (waited <= 0) return failed(wait_failure(waited), Stage::kSending, -waited);
  }

  char buffer[64 * 1024];
  int64_t read = 0;
  while (true) {
    const Stage stage = parser.received_any() ? Stage::kReading : Stage::kWaiting;
    const int waited = wait_for(socket.get(), POLLIN, deadline_ns);
    if (waited <= 0) return failed(wait_failure(waited), stage, -waited, read);
    const ssize_t n = ::recv(socket.get(), buffer, sizeof buffer, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return failed(Failure::kRead, stage, errno, read);
    }
    read += n;
    const ResponseParser::Result result =
        n == 0 ? parser.finish_eof() : parser.feed(buffer, static_cast<size_t>(n));
    if (result.state == ResponseParser::State::kComplete ||
        (limits.enough && limits.enough(parser))) {
      Exchange done;
      done.bytes_read = read;
      return done;
    }
    if (result.state == ResponseParser::State::kError) {
      return failed(Failure::kBadResponse, stage, 0, read);
    }
    if (n == 0) return failed(Failure::kClosed, stage, 0, read);
    if (read > limits.max_bytes) return failed(Failure::kOversized, stage, 0, read);
  }
}

}  // namespace proofload::http
