// Test support: an HTTP server on 127.0.0.1 with a known service rate. One thread serves every
// connection's requests in arrival order, one every `service_ns` of wall time (a fixed cost that
// does not depend on the CPU the test gets), keeping connections alive: a queue in front of a
// single worker, whose throughput under any load above it is exactly 1 / service time. Runs until
// destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace proofload::testing {

class PacedServer {
 public:
  explicit PacedServer(int64_t service_ns);
  ~PacedServer();
  PacedServer(const PacedServer&) = delete;
  PacedServer& operator=(const PacedServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  int64_t answered() const { return answered_.load(); }  // responses written so far

 private:
  void serve();

  int64_t service_ns_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;
  int port_ = 0;
  std::atomic<int64_t> answered_{0};
  std::thread thread_;
};

}  // namespace proofload::testing
