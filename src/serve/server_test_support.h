// A built-in server on its own thread and a blocking client that reads its responses, for the
// server's tests.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <thread>

#include "common/clock.h"
#include "serve/server.h"

namespace proofload::serve::test_support {

inline constexpr int kTimeoutMs = 3000;

// A Server running on its own thread; stopped and joined on destruction.
class RunningServer {
 public:
  explicit RunningServer(ServerOptions options) : server_(with_port_zero(std::move(options))) {
    thread_ = std::thread([this] { server_.run(); });
  }
  ~RunningServer() { stop_and_join(); }
  void stop_and_join() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return server_.port(); }
  Server& server() { return server_; }

 private:
  static ServerOptions with_port_zero(ServerOptions options) {
    options.port = 0;
    return options;
  }
  Server server_;
  std::thread thread_;
};

struct Response {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;
  int64_t received_ns = 0;
};

// A blocking client with a read buffer, enough to read the server's simple responses.
class Client {
 public:
  // `source_address` ("127.0.0.2"): connect from that local address instead of the kernel's
  // choice, so that one test has several distinct peers (all of 127/8 is local on Linux).
  explicit Client(int port, const char* source_address = nullptr)
      : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (source_address != nullptr) {
      sockaddr_in source{};
      source.sin_family = AF_INET;
      if (inet_pton(AF_INET, source_address, &source.sin_addr) != 1 ||
          bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0) {
        return;  // not connected
      }
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }

  void send(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      ASSERT_GT(n, 0) << "send failed";
      done += static_cast<size_t>(n);
    }
  }

  // The next complete response, or nothing if none arrives within timeout_ms or the
  // connection ends first.
  std::optional<Response> next(int timeout_ms = kTimeoutMs) {
    int64_t deadline_ns = monotonic_ns() + timeout_ms * kNsPerMs;
    while (true) {
      if (std::optional<Response> r = take()) return r;
      if (!fill(deadline_ns)) return std::nullopt;
    }
  }

  // True when the server closes the connection (FIN or reset) within timeout_ms with no
  // further bytes.
  bool closed_within(int timeout_ms = kTimeoutMs) {
    if (!buffer_.empty()) return false;
    return !fill(monotonic_ns() + timeout_ms * kNsPerMs) && buffer_.empty() && eof_;
  }

  void shutdown_write() { shutdown(fd_, SHUT_WR); }

  // True when nothing at all arrives for timeout_ms (the connection stays open and silent).
  bool silent_for(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    return poll(&p, 1, timeout_ms) == 0;
  }

 private:
  // Reads more bytes; false on timeout, EOF or error.
  bool fill(int64_t deadline_ns) {
    int64_t remaining_ms = (deadline_ns - monotonic_ns()) / kNsPerMs;
    pollfd p{fd_, POLLIN, 0};
    if (remaining_ms <= 0 || poll(&p, 1, static_cast<int>(remaining_ms)) <= 0) return false;
    char chunk[65536];
    ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  std::optional<Response> take() {
    size_t head_end = buffer_.find("\r\n\r\n");
    if (head_end == std::string::npos) return std::nullopt;
    Response r;
    r.head = buffer_.substr(0, head_end + 2);
    r.status = std::stoi(r.head.substr(9, 3));
    size_t length_at = r.head.find("Content-Length: ");
    size_t length = length_at == std::string::npos ? 0 : std::stoul(r.head.substr(length_at + 16));
    bool head_only = expect_head_only_;
    if (head_only) length = 0;
    if (buffer_.size() < head_end + 4 + length) return std::nullopt;
    r.body = buffer_.substr(head_end + 4, length);
    buffer_.erase(0, head_end + 4 + length);
    r.received_ns = monotonic_ns();
    return r;
  }

 public:
  bool expect_head_only_ = false;  // the next response answers a HEAD request: no body

 private:
  int fd_;
  bool connected_ = false;
  bool eof_ = false;
  std::string buffer_;
};

inline const std::string kGet = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";

}  // namespace proofload::serve::test_support
