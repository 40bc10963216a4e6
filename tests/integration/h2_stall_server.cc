// Test support: an HTTP/2 (h2c, prior knowledge) server that answers every request "ok" after a
// fixed delay and freezes on the built-in server's stall schedule, so the accuracy test knows the
// truth over HTTP/2 as it does over HTTP/1.1. (`proofload serve` speaks HTTP/1.1 only.)
//
//   h2_stall_server DELAY_US STALL_MS EVERY_MS FIRST_MS
//
// prints "listening on 127.0.0.1:PORT" and serves until killed. One thread, epoll, nghttp2's
// server session per connection. A request complete at t is answered at
// max(t, the end of the stall containing t) + delay, as `proofload serve --stall` does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "common/clock.h"
#include "net/event_loop.h"
#include "serve/stall_schedule.h"

namespace {

using proofload::monotonic_ns;

struct Connection {
  int fd = -1;
  uint64_t id = 0;
  nghttp2_session* session = nullptr;
  std::string out;  // frames not yet written
};

struct Due {
  int64_t at_ns;
  uint64_t connection;
  int32_t stream;
  bool operator>(const Due& other) const { return at_ns > other.at_ns; }
};

int64_t g_delay_ns = 0;
proofload::serve::StallSchedule g_stalls;
std::priority_queue<Due, std::vector<Due>, std::greater<>> g_due;
std::map<uint64_t, std::unique_ptr<Connection>> g_connections;

int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* c = static_cast<Connection*>(user);
  const bool request_end = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                           (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
  if (!request_end) return 0;
  const int64_t now = monotonic_ns();
  const int64_t stall_end = g_stalls.stall_end_ns(now);
  g_due.push({std::max(now, stall_end) + g_delay_ns, c->id, frame->hd.stream_id});
  return 0;
}

ssize_t read_ok(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                nghttp2_data_source*, void*) {
  if (length < 2) return NGHTTP2_ERR_WOULDBLOCK;
  buf[0] = 'o';
  buf[1] = 'k';
  *flags |= NGHTTP2_DATA_FLAG_EOF;
  return 2;
}

// Writes what the session has; false when the connection is gone.
bool flush(Connection& c) {
  for (;;) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(c.session, &data);
    if (n < 0) return false;
    if (n == 0) break;
    c.out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  while (!c.out.empty()) {
    const ssize_t n = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;  // EPOLLOUT goes on
    if (n <= 0) return false;
    c.out.erase(0, static_cast<size_t>(n));
  }
  return nghttp2_session_want_read(c.session) || nghttp2_session_want_write(c.session);
}

void drop(uint64_t id) {
  auto it = g_connections.find(id);
  if (it == g_connections.end()) return;
  nghttp2_session_del(it->second->session);
  close(it->second->fd);
  g_connections.erase(it);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: h2_stall_server DELAY_US STALL_MS EVERY_MS FIRST_MS\n");
    return 2;
  }
  g_delay_ns = std::atoll(argv[1]) * 1000;
  const int64_t ms = 1'000'000;
  g_stalls = proofload::serve::StallSchedule(monotonic_ns(), std::atoll(argv[4]) * ms,
                                             std::atoll(argv[3]) * ms, std::atoll(argv[2]) * ms);
  proofload::net::use_precise_timers_on_this_thread();

  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 1024) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    std::perror("listen");
    return 1;
  }
  std::printf("listening on 127.0.0.1:%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);

  const int epoll = epoll_create1(EPOLL_CLOEXEC);
  epoll_event listen_event{EPOLLIN, {.u64 = 0}};
  epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &listen_event);
  uint64_t next_id = 1;
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    // Answer what is due, then wait until the next answer is (ns precision: epoll_pwait2).
    const int64_t now = monotonic_ns();
    while (!g_due.empty() && g_due.top().at_ns <= now) {
      const Due due = g_due.top();
      g_due.pop();
      auto it = g_connections.find(due.connection);
      if (it == g_connections.end()) continue;
      const std::string status = ":status", ok = "200";
      nghttp2_nv nv{reinterpret_cast<uint8_t*>(const_cast<char*>(status.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(ok.data())), status.size(),
                    ok.size(), NGHTTP2_NV_FLAG_NONE};
      nghttp2_data_provider body{};
      body.read_callback = read_ok;
      nghttp2_submit_response(it->second->session, due.stream, &nv, 1, &body);
      if (!flush(*it->second)) drop(due.connection);
    }
    timespec wait{};
    timespec* timeout = nullptr;
    if (!g_due.empty()) {
      const int64_t left = std::max<int64_t>(0, g_due.top().at_ns - monotonic_ns());
      wait.tv_sec = left / 1'000'000'000;
      wait.tv_nsec = left % 1'000'000'000;
      timeout = &wait;
    }
    epoll_event events[64];
    const int n = epoll_pwait2(epoll, events, 64, timeout, nullptr);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == 0) {
        for (int fd;
             (fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
          const int one = 1;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          auto c = std::make_unique<Connection>();
          c->fd = fd;
          c->id = next_id++;
          nghttp2_session_server_new(&c->session, callbacks, c.get());
          nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, nullptr, 0);
          epoll_event e{EPOLLIN | EPOLLOUT | EPOLLET, {.u64 = c->id}};
          epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e);
          const uint64_t id = c->id;
          g_connections[id] = std::move(c);
          if (!flush(*g_connections[id])) drop(id);
        }
        continue;
      }
      auto it = g_connections.find(events[i].data.u64);
      if (it == g_connections.end()) continue;
      Connection& c = *it->second;
      bool alive = true;
      for (;;) {  // edge-triggered: read until the socket is empty
        const ssize_t got = recv(c.fd, buffer.data(), buffer.size(), 0);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (got <= 0 ||
            nghttp2_session_mem_recv(c.session, reinterpret_cast<uint8_t*>(buffer.data()),
                                     static_cast<size_t>(got)) < 0) {
          alive = false;
          break;
        }
      }
      if (!alive || !flush(c)) drop(events[i].data.u64);
    }
  }
}
