// Test-only helpers for the hook, drain-gate and probe tests: a scratch directory, waiting for a
// condition with a bound, and a scripted HTTP server on 127.0.0.1 (one thread, one connection at
// a time). Not thread-safe beyond what each class says.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace proofload::experiments::testing {

// A fresh directory under the system temp directory, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("pl-hooks-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls `condition` until it holds or `limit` passed; for waiting on another process or thread.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds limit = std::chrono::milliseconds(3000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// A loopback TCP socket bound to port 0. Listening: connects succeed (and, unless accepted,
// nothing answers). Not listening: connects are refused for as long as it stays bound.
class LoopbackSocket {
 public:
  explicit LoopbackSocket(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    if (listening) listen(fd_, 16);
    socklen_t length = sizeof address;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;
  ~LoopbackSocket() { close(fd_); }
  int fd() const { return fd_; }
  int port() const { return port_; }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Answers the n-th connection with responses[n] (the last one again for any later connection):
// reads the request head, writes the bytes as given, then (unless told otherwise) waits for the
// client to close, so a client that waits for more than it needs is seen to time out.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> responses, bool wait_for_client_close = true)
      : socket_(true),
        responses_(std::move(responses)),
        wait_for_client_close_(wait_for_client_close) {
    pipe2(stop_pipe_, O_CLOEXEC);
    thread_ = std::thread([this] { serve(); });
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;
  ~ScriptedServer() {
    [[maybe_unused]] ssize_t ignored = write(stop_pipe_[1], "x", 1);
    thread_.join();
    close(stop_pipe_[0]);
    close(stop_pipe_[1]);
  }
  std::string url(const std::string& path = "/") const { return socket_.url(path); }
  int connections() const { return connections_.load(); }
  std::string first_request() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_request_;
  }

 private:
  // Waits for fd to be readable; false when the server is stopping.
  bool wait_readable(int fd) {
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    while (poll(p, 2, -1) < 0) {
    }
    return (p[1].revents & POLLIN) == 0;
  }

  void serve() {
    while (wait_readable(socket_.fd())) {
      const int client = accept4(socket_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      const int index = connections_++;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos && wait_readable(client)) {
        const ssize_t n = read(client, buffer, sizeof buffer);
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
      }
      if (index == 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        first_request_ = request;
      }
      const std::string& response =
          responses_[std::min(static_cast<size_t>(index), responses_.size() - 1)];
      [[maybe_unused]] ssize_t sent = send(client, response.data(), response.size(), MSG_NOSIGNAL);
      while (wait_for_client_close_ && wait_readable(client) &&
             read(client, buffer, sizeof buffer) > 0) {
      }
      close(client);
    }
  }

  LoopbackSocket socket_;
  std::vector<std::string> responses_;
  bool wait_for_client_close_;
  int stop_pipe_[2] = {-1, -1};
  std::atomic<int> connections_{0};
  mutable std::mutex mutex_;
  std::string first_request_;
  std::thread thread_;
};

inline std::string response_with_status(int status) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\n\r\n";
}

}  // namespace proofload::experiments::testing
