// Test support: a misbehaving "HTTP server" on 127.0.0.1 that answers every request with the
// same canned bytes (garbage, a cut response, a huge header), then closes or keeps the
// connection. Runs on its own thread until destroyed.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace proofload::testing {

class RawServer {
 public:
  // `reply` is written after each request's headers arrive; `close_after` closes the connection
  // after writing it.
  RawServer(std::string reply, bool close_after);
  // `reply()` is called for each request: an answer that changes (series churning).
  RawServer(std::function<std::string()> reply, bool close_after);
  ~RawServer();
  int port() const { return port_; }
  // The request line of every request answered so far, in the order they came.
  std::vector<std::string> request_lines() const;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

 private:
  void serve();
  std::function<std::string()> reply_;
  bool close_after_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex lines_mutex_;
  std::vector<std::string> request_lines_;
  std::thread thread_;
};

}  // namespace proofload::testing
