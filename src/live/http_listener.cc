// See http_listener.h. One poll loop: at most kMaxClients + 2 descriptors, so poll is as good as
// epoll here and simpler.
#include "live/http_listener.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::live {

struct HttpListener::Client {
  UniqueFd fd;
  uint64_t id = 0;
  // The listener's thread alone:
  std::string in;  // the request head read so far
  int64_t head_deadline_ns = 0;
  bool answered = false;                   // its request was answered (or refused)
  std::function<void(uint64_t)> on_close;  // a stream's
  // Under mutex_:
  std::string out;  // queued for the client; out_sent of them already sent
  size_t out_sent = 0;
  bool stream = false;
  bool close_when_sent = false;
  bool dropped = false;        // fell too far behind, or the socket failed
  int64_t last_queued_ns = 0;  // a stream's last queued bytes (for keep-alives)
};

namespace {

std::string head_of(int status, std::string_view reason, std::string_view content_type,
                    std::optional<size_t> content_length, std::string_view extra = {}) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " ";
  head.append(reason);
  head += "\r\nContent-Type: ";
  head.append(content_type);
  if (content_length) head += "\r\nContent-Length: " + std::to_string(*content_length);
  // Every answer is of the running experiment's moment: never cached.
  head += "\r\nCache-Control: no-store\r\nConnection: close\r\n";
  head.append(extra);
  head += "\r\n";
  return head;
}

std::string refusal(int status, std::string_view reason, std::string_view extra = {}) {
  std::string body = std::to_string(status) + " ";
  body.append(reason);
  body += "\n";
  return head_of(status, reason, "text/plain; charset=utf-8", body.size(), extra) + body;
}

}  // namespace

HttpListener::HttpListener(const net::Address& address, std::string what) : what_(std::move(what)) {
  auto fail = [&](const char* doing) {
    throw UsageError(what_ + ": cannot " + doing + " " + address.text + ": " +
                     std::strerror(errno));
  };
  listen_fd_.reset(
      ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (listen_fd_.get() < 0) fail("open a socket for");
  const int one = 1;
  // A dashboard restarted at once finds its port in TIME_WAIT otherwise; SO_REUSEADDR still
  // refuses a port another process listens on.
  ::setsockopt(listen_fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd_.get(), reinterpret_cast<const sockaddr*>(&address.storage),
             address.length) != 0) {
    fail("listen on");
  }
  if (::listen(listen_fd_.get(), kMaxClients) != 0) fail("listen on");
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(listen_fd_.get(), reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) fail("make a wake-up pipe for");
  wake_read_.reset(pipe_fds[0]);
  wake_write_.reset(pipe_fds[1]);
}

HttpListener::~HttpListener() { finish("", 0); }

void HttpListener::add_page(std::string path, std::string content_type,
                            std::function<std::string()> body) {
  Route route;
  route.content_type = std::move(content_type);
  route.body = std::move(body);
  routes_[std::move(path)] = std::move(route);
}

void HttpListener::add_stream(std::string path, std::string content_type,
                              std::function<void(uint64_t)> on_open,
                              std::function<void(uint64_t)> on_close, std::string keep_alive,
                              int64_t keep_alive_ns) {
  Route route;
  route.content_type = std::move(content_type);
  route.on_open = std::move(on_open);
  route.on_close = std::move(on_close);
  route.stream = true;
  routes_[std::move(path)] = std::move(route);
  keep_alive_ = std::move(keep_alive);
  keep_alive_ns_ = keep_alive_ns;
}

void HttpListener::start() {
  thread_ = std::thread([this] { loop(); });
}

void HttpListener::wake() {
  const char byte = 1;
  // A full pipe already holds a wake-up: the loop drains it all at once.
  [[maybe_unused]] ssize_t n = ::write(wake_write_.get(), &byte, 1);
}

bool HttpListener::send(uint64_t client, std::string_view bytes) {
  {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(client);
    if (it == clients_.end() || it->second->dropped || it->second->close_when_sent) return false;
    Client& c = *it->second;
    if (c.out.size() - c.out_sent + bytes.size() > kMaxStreamBacklogBytes) {
      c.dropped = true;  // it reads slower than the experiment writes: the load comes first
    } else {
      c.out.append(bytes);
      c.last_queued_ns = monotonic_ns();
    }
  }
  wake();
  return true;
}

void HttpListener::finish(std::string_view last, int64_t flush_timeout_ns) {
  {
    std::lock_guard lock(mutex_);
    if (finishing_) return;
    finishing_ = true;
    finish_deadline_ns_ = monotonic_ns() + flush_timeout_ns;
    for (auto& [id, c] : clients_) {
      if (c->stream && !c->dropped) c->out.append(last);
      c->close_when_sent = true;
    }
  }
  wake();
  if (thread_.joinable()) thread_.join();
  listen_fd_.reset();
}

void HttpListener::loop() {
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  std::vector<uint64_t> to_close;
  for (;;) {
    const int64_t now = monotonic_ns();
    int64_t next_ns = now + kNsPerS;  // the latest a timer below is looked at again
    fds.clear();
    ids.clear();
    {
      std::lock_guard lock(mutex_);
      if (finishing_ && (clients_.empty() || now >= finish_deadline_ns_)) break;
      if (finishing_) next_ns = std::min(next_ns, finish_deadline_ns_);
      fds.push_back({wake_read_.get(), POLLIN, 0});
      fds.push_back({listen_fd_.get(), static_cast<short>(finishing_ ? 0 : POLLIN), 0});
      for (auto& [id, c] : clients_) {
        if (c->stream && !c->close_when_sent && keep_alive_ns_ > 0) {
          if (now - c->last_queued_ns >= keep_alive_ns_) {
            c->out.append(keep_alive_);
            c->last_queued_ns = now;
          }
          next_ns = std::min(next_ns, c->last_queued_ns + keep_alive_ns_);
        }
        if (!c->answered) next_ns = std::min(next_ns, c->head_deadline_ns);
        short events = POLLIN;  // a stream's reader closing shows as readable
        if (c->out.size() > c->out_sent) events |= POLLOUT;
        fds.push_back({c->fd.get(), events, 0});
        ids.push_back(id);
      }
    }
    const int64_t wait_ms = std::clamp<int64_t>((next_ns - now + kNsPerMs - 1) / kNsPerMs, 0, 1000);
    if (::poll(fds.data(), fds.size(), static_cast<int>(wait_ms)) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) {
      char drain[256];
      while (::read(wake_read_.get(), drain, sizeof drain) > 0) {
      }
    }
    if ((fds[1].revents & POLLIN) != 0) accept_clients();
    to_close.clear();
    const int64_t after = monotonic_ns();
    for (size_t i = 0; i < ids.size(); ++i) {
      Client& c = *clients_.at(ids[i]);  // only this thread erases
      const short revents = fds[i + 2].revents;
      if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) read_head(c);
      if ((revents & POLLOUT) != 0) write_out(c);
      bool close = false;
      {
        std::lock_guard lock(mutex_);
        if (!c.answered && (after >= c.head_deadline_ns || finishing_)) c.dropped = true;
        close = c.dropped || (c.close_when_sent && c.out_sent == c.out.size());
      }
      if (close) to_close.push_back(ids[i]);
    }
    for (uint64_t id : to_close) close_client(id);
  }
  std::vector<uint64_t> left;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, c] : clients_) left.push_back(id);
  }
  for (uint64_t id : left) close_client(id);
}

void HttpListener::accept_clients() {
  for (;;) {
    const int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a connection gone before it was accepted
    std::lock_guard lock(mutex_);
    if (clients_.size() >= static_cast<size_t>(kMaxClients)) {
      const std::string busy = refusal(503, "Service Unavailable");
      [[maybe_unused]] ssize_t n = ::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL);
      ::close(fd);
      continue;
    }
    auto client = std::make_unique<Client>();
    client->fd.reset(fd);
    client->head_deadline_ns = monotonic_ns() + kHeadTimeoutNs;
    client->id = next_id_++;
    clients_.emplace(client->id, std::move(client));
  }
}

void HttpListener::read_head(Client& c) {
  char buffer[4096];
  const ssize_t n = ::recv(c.fd.get(), buffer, sizeof buffer, 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    std::lock_guard lock(mutex_);
    c.dropped = true;  // the reader went away
    return;
  }
  if (n < 0 || c.answered) return;  // after the head, what a client sends is ignored
  c.in.append(buffer, static_cast<size_t>(n));
  size_t end = c.in.find("\r\n\r\n");
  if (end == std::string::npos) end = c.in.find("\n\n");
  if (end != std::string::npos && end <= kMaxHeadBytes) {
    answer(c, std::string_view(c.in).substr(0, end));
  } else if (c.in.size() > kMaxHeadBytes) {
    c.answered = true;
    std::lock_guard lock(mutex_);
    c.out = refusal(400, "Bad Request");
    c.close_when_sent = true;
  }
}

void HttpListener::answer(Client& c, std::string_view head) {
  c.answered = true;
  const std::string_view line = head.substr(0, head.find_first_of("\r\n"));
  const size_t first = line.find(' ');
  const size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  const Route* route = nullptr;
  std::string reply;
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos ||
      !line.substr(second + 1).starts_with("HTTP/1.") || line[first + 1] != '/') {
    reply = refusal(400, "Bad Request");
  } else if (line.substr(0, first) != "GET") {
    reply = refusal(405, "Method Not Allowed", "Allow: GET\r\n");
  } else {
    std::string_view path = line.substr(first + 1, second - first - 1);
    path = path.substr(0, path.find('?'));
    auto it = routes_.find(path);
    if (it == routes_.end()) {
      reply = refusal(404, "Not Found");
    } else {
      route = &it->second;
      if (!route->stream) {
        const std::string body = route->body();
        reply = head_of(200, "OK", route->content_type, body.size()) + body;
      } else {
        // X-Accel-Buffering: a reverse proxy in front would otherwise hold the events back.
        reply = head_of(200, "OK", route->content_type, std::nullopt, "X-Accel-Buffering: no\r\n");
      }
    }
  }
  uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    c.out = std::move(reply);
    c.out_sent = 0;
    if (route != nullptr && route->stream) {
      c.stream = true;
      c.last_queued_ns = monotonic_ns();
      c.on_close = route->on_close;
      c.close_when_sent = finishing_;
      id = c.id;
    } else {
      c.close_when_sent = true;
    }
  }
  if (id != 0 && route->on_open) route->on_open(id);
}

void HttpListener::write_out(Client& c) {
  std::lock_guard lock(mutex_);
  while (c.out_sent < c.out.size()) {
    const ssize_t n = ::send(c.fd.get(), c.out.data() + c.out_sent, c.out.size() - c.out_sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno != EAGAIN && errno != EINTR) c.dropped = true;
      return;
    }
    c.out_sent += static_cast<size_t>(n);
    // A reader that keeps up but never quite drains its queue would otherwise keep every byte
    // ever sent to it: the sent half goes once it is half the buffer (amortized linear).
    if (c.out_sent > c.out.size() / 2) {
      c.out.erase(0, c.out_sent);
      c.out_sent = 0;
    }
  }
  c.out.clear();  // all sent: the buffer is reused
  c.out_sent = 0;
}

void HttpListener::close_client(uint64_t id) {
  std::unique_ptr<Client> client;
  {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return;
    client = std::move(it->second);
    clients_.erase(it);
  }
  if (client->stream && client->on_close) client->on_close(id);
}

}  // namespace proofload::live
