// See blocking_client.h. Non-blocking sockets and poll(): a server that accepts and never answers
// costs the deadline, never more.
#include "http/blocking_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/usage_error.h"
#include "net/transport.h"

namespace proofload::http {
namespace {

// Waits for `events` on fd until the deadline: 1 when ready, 0 at the deadline, -errno on error,
// -ECANCELED once `cancel` is set (looked at every kCancelCheckNs).
int wait_for(int fd, short events, int64_t deadline_ns, const std::atomic<bool>* cancel) {
  while (true) {
    if (cancel != nullptr && cancel->load()) return -ECANCELED;
    int64_t left_ns = deadline_ns - monotonic_ns();
    if (left_ns <= 0) return 0;
    if (cancel != nullptr) left_ns = std::min(left_ns, kCancelCheckNs);
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
  return waited > 0             ? Exchange::Failure::kNone
         : waited == 0          ? Exchange::Failure::kTimedOut
         : waited == -ECANCELED ? Exchange::Failure::kCancelled
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
                  ResponseParser& parser, int64_t deadline_ns, const ExchangeLimits& limits,
                  const net::TlsContext* tls) {
  using Failure = Exchange::Failure;
  using Stage = Exchange::Stage;
  using net::IoStatus;
  // Waits for what the transport asked for.
  auto wait = [&](const net::Transport& t, IoStatus want) {
    return wait_for(t.fd(), want == IoStatus::kWantWrite ? POLLOUT : POLLIN, deadline_ns,
                    limits.cancel);
  };
  net::Transport transport;
  Exchange refused = failed(Failure::kConnect, Stage::kConnecting, ECONNREFUSED);
  bool connected = false;
  for (const SocketAddress& address : addresses) {
    net::Address target;
    target.storage = address.storage;
    target.length = address.length;
    if (transport.connect(target) != 0) {
      refused.error_number = transport.failure().error_number;
      if (refused.error_number == EMFILE || refused.error_number == ENFILE) {
        return failed(Failure::kSocket, Stage::kConnecting, refused.error_number);
      }
      continue;  // the next address may accept
    }
    const int waited = wait(transport, IoStatus::kWantWrite);
    if (waited <= 0) return failed(wait_failure(waited), Stage::kConnecting, -waited);
    if (const int error = transport.finish_connect(); error != 0) {
      refused.error_number = error;
      continue;
    }
    connected = true;
    break;
  }
  if (!connected) return refused;

  if (tls != nullptr) {
    transport.begin_tls(*tls, nullptr);
    for (;;) {
      const net::Io io = transport.handshake();
      if (io.status == IoStatus::kOk) break;
      if (io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite) {
        const int waited = wait(transport, io.status);
        if (waited <= 0) return failed(wait_failure(waited), Stage::kHandshaking, -waited);
        continue;
      }
      Exchange out = failed(Failure::kTls, Stage::kHandshaking);
      out.tls_reason = net::failure_text(transport.failure());
      return out;
    }
  }

  size_t sent = 0;
  while (sent < request.size()) {
    const net::Io io = transport.write(request.data() + sent, request.size() - sent);
    if (io.status == IoStatus::kOk) {
      sent += io.bytes;
      continue;
    }
    if (io.status == IoStatus::kFailed || io.status == IoStatus::kClosed) {
      if (transport.failure().tls()) {
        Exchange out = failed(Failure::kTls, Stage::kSending);
        out.tls_reason = net::failure_text(transport.failure());
        return out;
      }
      return failed(Failure::kSend, Stage::kSending, transport.failure().error_number);
    }
    const int waited = wait(transport, io.status);
    if (waited <= 0) return failed(wait_failure(waited), Stage::kSending, -waited);
  }

  char buffer[64 * 1024];
  int64_t read = 0;
  IoStatus want = IoStatus::kWantRead;
  while (true) {
    const Stage stage = parser.received_any() ? Stage::kReading : Stage::kWaiting;
    // TLS may hold decrypted bytes already: read those before waiting on the socket.
    if (!transport.buffered()) {
      const int waited = wait(transport, want);
      if (waited <= 0) return failed(wait_failure(waited), stage, -waited, read);
    }
    const net::Io io = transport.read(buffer, sizeof buffer);
    if (io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite) {
      want = io.status;
      continue;
    }
    want = IoStatus::kWantRead;
    if (io.status == IoStatus::kFailed) {
      if (transport.failure().tls()) {
        Exchange out = failed(Failure::kTls, stage, 0, read);
        out.tls_reason = net::failure_text(transport.failure());
        return out;
      }
      return failed(Failure::kRead, stage, transport.failure().error_number, read);
    }
    const size_t n = io.status == IoStatus::kOk ? io.bytes : 0;
    read += static_cast<int64_t>(n);
    const ResponseParser::Result result = n == 0 ? parser.finish_eof() : parser.feed(buffer, n);
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
