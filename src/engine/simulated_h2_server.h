// The simulated server's HTTP/2 side (simulated_io.h, ServerModel::http2): nghttp2's own server
// session over a simulated socket's bytes, so that the worker's HTTP/2 session is driven by a
// real peer's frames, settings and flow control while the World decides when each answer is due.
// Only worker_simulation_test links it.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::engine::simulated {

// What the server answers a request: the same over HTTP/1.1 and HTTP/2.
struct Answer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // besides the length
  std::string body;
  bool close = false;  // the connection ends after it (HTTP/2: a GOAWAY, then the close)
};

class H2Server {
 public:
  H2Server();
  ~H2Server();
  H2Server(const H2Server&) = delete;
  H2Server& operator=(const H2Server&) = delete;

  // The client's bytes (its preface first). The streams whose request ended in them are appended
  // to `completed`; false when the client broke the protocol.
  bool receive(std::string_view bytes, std::vector<int32_t>& completed);
  // Whether the stream is still open (the client may have reset it).
  bool has_stream(int32_t stream) const;
  void answer(int32_t stream, const Answer& answer);
  // No stream after the last one begun will be processed (GOAWAY, NO_ERROR).
  void go_away();
  // Appends what the session has to send.
  void send_into(std::string& out);
  // The flow-control window the client gives each stream (its SETTINGS_INITIAL_WINDOW_SIZE).
  uint32_t client_stream_window() const;

 private:
  nghttp2_session* session_ = nullptr;
  std::vector<int32_t>* completed_ = nullptr;  // during receive
  std::map<int32_t, std::string> bodies_;      // what is left to send of each open answer's body
};

}  // namespace proofload::engine::simulated
