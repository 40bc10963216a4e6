// See paced_server.h. epoll for many connections; the pace is an absolute schedule (answer k no
// earlier than the previous answer plus the service time), so a late wake-up never raises the
// rate above 1 / service time.
#include "paced_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <deque>
#include <map>
#include <stdexcept>

#include "process.h"

namespace proofload::testing {
namespace {

int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

constexpr char kReply[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

}  // namespace

PacedServer::PacedServer(int64_t service_ns) : service_ns_(service_ns) {
  listen_fd_ = listen_on_loopback("PacedServer", port_, SOCK_NONBLOCK, 4096);
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  thread_ = std::thread([this] { serve(); });
}

PacedServer::~PacedServer() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t ignored = write(stop_fd_, &one, sizeof one);
  thread_.join();
  close(stop_fd_);
  close(listen_fd_);
}

void PacedServer::serve() {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  auto watch = [&](int fd) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &e);
  };
  watch(listen_fd_);
  watch(stop_fd_);
  // A connection: its request bytes not yet parsed, and a number no later connection that gets
  // the same fd shares (its queued requests are not the newcomer's).
  struct Client {
    std::string buffer;
    int64_t id = 0;
  };
  std::map<int, Client> clients;
  std::deque<std::pair<int, int64_t>> queue;  // (fd, id) per complete request, in arrival order
  int64_t next_id = 0;
  int64_t next_answer_ns = 0;
  epoll_event events[256];
  for (;;) {
    int timeout_ms = -1;
    if (!queue.empty()) {
      const int64_t wait_ns = next_answer_ns - now_ns();
      timeout_ms = wait_ns <= 0 ? 0 : static_cast<int>((wait_ns + 999'999) / 1'000'000);
    }
    const int n = epoll_wait(epoll_fd, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == stop_fd_) {
        for (const auto& [client, unused] : clients) close(client);
        close(epoll_fd);
        return;
      }
      if (fd == listen_fd_) {
        int client;
        while ((client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0) {
          clients[client] = {"", next_id++};
          watch(client);
        }
        continue;
      }
      char buffer[4096];
      const ssize_t got = read(fd, buffer, sizeof buffer);
      if (got <= 0) {
        close(fd);  // its queued requests are skipped when their turn comes
        clients.erase(fd);
        continue;
      }
      Client& client = clients[fd];
      client.buffer.append(buffer, static_cast<size_t>(got));
      for (size_t end; (end = client.buffer.find("\r\n\r\n")) != std::string::npos;) {
        client.buffer.erase(0, end + 4);
        if (queue.empty()) next_answer_ns = std::max(next_answer_ns, now_ns() + service_ns_);
        queue.emplace_back(fd, client.id);
      }
    }
    // Answer what is due: one request per service time, the oldest first.
    while (!queue.empty() && now_ns() >= next_answer_ns) {
      const auto [fd, id] = queue.front();
      queue.pop_front();
      const auto client = clients.find(fd);
      if (client == clients.end() || client->second.id != id) continue;  // gone: no time spent
      if (send(fd, kReply, sizeof kReply - 1, MSG_NOSIGNAL) ==
          static_cast<ssize_t>(sizeof kReply - 1)) {
        answered_.fetch_add(1);
      }
      next_answer_ns += service_ns_;
    }
  }
}

}  // namespace proofload::testing
