// The server thread's accepting side: new connections into reused slots (with TLS, their
// handshake first), and the connection cap's log line. See worker.h.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "common/clock.h"
#include "serve/connection.h"
#include "serve/connection_io.h"
#include "serve/worker.h"

namespace proofload::serve {
namespace {

constexpr int kMaxAcceptsPerWake = 64;
// The connection cap's log line: the first refusal at once, then at most one line this often
// (with the count since the last), so a flood of clients cannot flood the log.
constexpr int64_t kCapLogEveryNs = 10 * kNsPerS;

}  // namespace

void Worker::accept_connections() {
  for (int i = 0; i < kMaxAcceptsPerWake; ++i) {
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof peer;
    int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_length,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Level-triggered accept would spin; listen again once a connection closes.
        loop_.remove(listen_fd_);
        accept_paused_ = true;
        return;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: the queue is empty
    }
    if (open_connections_ >= max_connections_) {
      close(fd);
      note_refused_at_cap(monotonic_ns());
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Connection& c = take_slot(fd, peer);
    if (tls_ != nullptr) {
      c.ssl = SSL_new(tls_);
      if (c.ssl == nullptr) {
        close_connection(c);
        continue;
      }
      SSL_set_fd(c.ssl, fd);
      SSL_set_accept_state(c.ssl);
      c.handshaking = true;  // the ClientHello comes first: wait for it to be readable
    }
  }
}

void Worker::on_handshake_event(Connection& c, int64_t now_ns) {
  const std::optional<Wait> wait = continue_handshake(c);
  if (!wait) {
    close_connection(c);
    return;
  }
  c.active_ns = now_ns;
  if (*wait == Wait::kNone) {
    // Done: read what the client sent behind its Finished (TLS 1.3 often sends its request at
    // once), or wait for it.
    c.write_blocked = false;
    on_readable(c, now_ns);
    return;
  }
  const uint32_t wanted = *wait == Wait::kWrite ? EPOLLOUT : EPOLLIN;
  if (wanted != c.interest) {
    loop_.modify(c.fd, wanted, token(Kind::kConnection, c));
    c.interest = wanted;
  }
}

void Worker::note_refused_at_cap(int64_t now_ns) {
  ++refused_at_cap_;
  if (now_ns < next_cap_log_ns_) return;
  // stderr, one line: the listening line is on stdout, where scripts read the port.
  std::fprintf(stderr,
               "serve: at the connection cap (%d open on thread %d, --max-connections): closed "
               "%lld new connection%s at once since the last such line\n",
               open_connections_, thread_index_, static_cast<long long>(refused_at_cap_),
               refused_at_cap_ == 1 ? "" : "s");
  refused_at_cap_ = 0;
  next_cap_log_ns_ = now_ns + kCapLogEveryNs;
}

}  // namespace proofload::serve
