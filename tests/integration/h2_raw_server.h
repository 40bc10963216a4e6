// Test support: a hostile HTTP/2 (h2c, prior knowledge) "server" on 127.0.0.1 that writes frames
// byte by byte as the test says, so that it can break the rules nghttp2's own server session
// keeps: a bad :status, DATA beyond a content-length, a PUSH_PROMISE nobody enabled, a stream id
// of the wrong parity. It reads the client's preface and frames, sends an empty SETTINGS and
// acknowledges the client's, and answers each request's HEADERS with `answer(stream_id)`. It
// counts what it was asked and what it was told (RST_STREAM, GOAWAY). Single-threaded poll loop
// on its own thread, until destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "http/h2_frame_test_support.h"  // h2_frame and the frame types

namespace proofload::testing {

class H2RawServer {
 public:
  explicit H2RawServer(std::function<std::string(uint32_t stream_id)> answer);
  ~H2RawServer();
  H2RawServer(const H2RawServer&) = delete;
  H2RawServer& operator=(const H2RawServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  int64_t requests() const { return requests_.load(); }        // HEADERS of a request received
  int64_t resets_received() const { return resets_.load(); }   // RST_STREAM frames
  int64_t goaways_received() const { return goaways_.load(); }  // GOAWAY frames

 private:
  void serve();

  std::function<std::string(uint32_t)> answer_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> requests_{0}, resets_{0}, goaways_{0};
  std::thread thread_;
};

}  // namespace proofload::testing
