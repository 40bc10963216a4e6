// See raw_server.h. Single-threaded poll loop; fine for the few connections a test opens.
#include "raw_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "process.h"

namespace proofload::testing {

RawServer::RawServer(std::string reply, bool close_after)
    : RawServer([reply = std::move(reply)] { return reply; }, close_after) {}

RawServer::RawServer(std::function<std::string()> reply, bool close_after)
    : reply_(std::move(reply)), close_after_(close_after) {
  listen_fd_ = listen_on_loopback("RawServer", port_);
  thread_ = std::thread([this] { serve(); });
}

RawServer::~RawServer() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

std::vector<std::string> RawServer::request_lines() const {
  const std::lock_guard<std::mutex> lock(lines_mutex_);
  return request_lines_;
}

void RawServer::serve() {
  std::map<int, std::string> pending;  // fd -> request bytes not yet answered
  while (!stop_) {
    std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}};
    for (const auto& [fd, buffer] : pending) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 50) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) pending[fd] = "";
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int fd = fds[i].fd;
      char buffer[4096];
      ssize_t n = read(fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fd);
        pending.erase(fd);
        continue;
      }
      std::string& request = pending[fd];
      request.append(buffer, static_cast<size_t>(n));
      if (request.find("\r\n\r\n") == std::string::npos) continue;
      {
        const std::lock_guard<std::mutex> lock(lines_mutex_);
        request_lines_.push_back(request.substr(0, request.find("\r\n")));
      }
      request.clear();
      const std::string reply = reply_();
      size_t written = 0;
      while (written < reply.size()) {
        ssize_t w = send(fd, reply.data() + written, reply.size() - written, MSG_NOSIGNAL);
        if (w <= 0) break;
        written += static_cast<size_t>(w);
      }
      if (close_after_) {
        close(fd);
        pending.erase(fd);
      }
    }
  }
  for (const auto& [fd, buffer] : pending) close(fd);
}

}  // namespace proofload::testing
