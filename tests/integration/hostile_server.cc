// See hostile_server.h. Blocking sockets, a thread per connection: a test opens a handful.
#include "hostile_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "process.h"

namespace proofload::testing {

HostileServer::HostileServer(std::string reply, std::string flood) : reply_(std::move(reply)) {
  // The flood goes out in blocks of at least 256 KiB, so that the client's socket stays full and
  // every read it makes fills its buffer: the case where a reader that loops while reads come
  // back full never returns.
  while (!flood.empty() && flood_.size() < (256u << 10)) flood_ += flood;
  listen_fd_ = listen_on_loopback("HostileServer", port_);
  acceptor_ = std::thread([this] { accept_loop(); });
}

HostileServer::~HostileServer() {
  stop_ = true;
  shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  {
    std::lock_guard lock(mutex_);
    for (int fd : clients_) shutdown(fd, SHUT_RDWR);  // ends a blocked send or recv
  }
  for (std::thread& t : threads_) t.join();
  for (int fd : clients_) close(fd);
  close(listen_fd_);
}

HostileServer HostileServer::early_hints_flood() {
  return HostileServer("", "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n");
}

HostileServer HostileServer::endless_chunk_extension() {
  return HostileServer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=",
                       std::string(4096, 'a'));
}

HostileServer HostileServer::endless_body() {
  return HostileServer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                       "1000\r\n" + std::string(4096, 'x') + "\r\n");
}

void HostileServer::accept_loop() {
  while (!stop_) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stop_) return;
      continue;
    }
    std::lock_guard lock(mutex_);
    clients_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void HostileServer::serve(int fd) {
  auto send_all = [&](const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size() && !stop_) {
      const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
      bytes_sent_ += n;
    }
    return !stop_;
  };
  std::string request;
  char buffer[4096];
  while (!stop_) {
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    request.append(buffer, static_cast<size_t>(n));
    const size_t end = request.find("\r\n\r\n");
    if (end == std::string::npos) continue;
    request.erase(0, end + 4);
    if (!reply_.empty() && !send_all(reply_)) return;
    if (flood_.empty()) continue;
    while (send_all(flood_)) {
    }
    return;
  }
}

}  // namespace proofload::testing
