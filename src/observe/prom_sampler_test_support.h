// Test support for the prom: sampler's tests (prom_sampler_test.cc, prom_limits_test.cc): a test
// endpoint on 127.0.0.1 that answers as each test says, the exposition fixtures, and small
// helpers over samples. Test-only.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/usage_error.h"
#include "net/tls_test_server.h"
#include "observe/prom_text.h"
#include "observe/prom_sampler.h"
#include "process.h"

namespace proofload::observe {

inline std::string exposition_fixture(const std::string& name) {
  std::ifstream in(std::string(PROOFLOAD_PROM_TESTDATA) + "/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string ok_response(const std::string& body, const std::string& extra_headers = "") {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// An endpoint on 127.0.0.1 serving one connection at a time on its own thread, recording each
// request. kReply writes `reply` and closes; kHold writes `reply` (maybe nothing, maybe part of
// a response) and then holds the connection until the client closes it or the endpoint stops.
class TestEndpoint {
 public:
  enum class Mode { kReply, kHold, kCloseAtAccept, kCloseAfterRequest };

  explicit TestEndpoint(Mode mode, std::string reply = "")
      : TestEndpoint(mode, [reply = std::move(reply)](int) { return reply; }) {}
  // `reply(n)` is written to the n-th request, from 0: an endpoint whose answer changes.
  TestEndpoint(Mode mode, std::function<std::string(int)> reply)
      : mode_(mode), reply_(std::move(reply)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listen_fd_, 16) != 0 || pipe2(stop_pipe_, O_CLOEXEC) != 0) {
      throw std::runtime_error("TestEndpoint: cannot listen");
    }
    socklen_t length = sizeof address;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TestEndpoint() {
    char byte = 0;
    (void)!write(stop_pipe_[1], &byte, 1);
    thread_.join();
    close(listen_fd_);
    close(stop_pipe_[0]);
    close(stop_pipe_[1]);
  }

  std::string spec(const std::string& path_and_query = "/metrics") const {
    return "prom:http://127.0.0.1:" + std::to_string(port_) + path_and_query;
  }
  int port() const { return port_; }
  std::string last_request() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_request_;
  }

 private:
  // Waits for `fd` or the stop pipe; false when stopping.
  bool wait_readable(int fd) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    while (poll(fds, 2, -1) < 0) {
    }
    return !(fds[1].revents & POLLIN);
  }

  void serve() {
    while (wait_readable(listen_fd_)) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (mode_ != Mode::kCloseAtAccept) handle(fd);
      close(fd);
    }
  }

  void handle(int fd) {
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      if (!wait_readable(fd)) return;
      ssize_t n = read(fd, buffer, sizeof buffer);
      if (n <= 0) return;
      request.append(buffer, static_cast<size_t>(n));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      last_request_ = request;
    }
    if (mode_ == Mode::kCloseAfterRequest) return;
    const std::string reply = reply_(requests_++);
    size_t written = 0;
    while (written < reply.size()) {
      ssize_t n = send(fd, reply.data() + written, reply.size() - written, MSG_NOSIGNAL);
      if (n <= 0) return;  // the client stopped reading and closed
      written += static_cast<size_t>(n);
    }
    if (mode_ == Mode::kHold) {
      while (wait_readable(fd) && read(fd, buffer, sizeof buffer) > 0) {
      }
    }
  }

  Mode mode_;
  std::function<std::string(int)> reply_;
  int requests_ = 0;  // the serving thread's
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  int port_ = 0;
  std::mutex mutex_;
  std::string last_request_;
  std::thread thread_;
};

inline std::map<std::string, Reading> by_name(const Sample& sample) {
  std::map<std::string, Reading> readings;
  for (const Reading& reading : sample.readings) readings[reading.name] = reading;
  return readings;
}

// Samples and measures how long it took.
inline Sample timed_sample(Sampler& sampler, int64_t& elapsed_ns) {
  int64_t start = monotonic_ns();
  Sample sample = sampler.sample(start);
  elapsed_ns = monotonic_ns() - start;
  return sample;
}

constexpr int64_t kShortTimeoutNs = 300 * kNsPerMs;
constexpr int64_t kLateNs = 400 * kNsPerMs;  // how late a timed-out sample may come back

}  // namespace proofload::observe
