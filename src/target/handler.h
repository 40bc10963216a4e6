// The per-request step of the built-in server: given what the parser learned about a request,
// pick the response and when to send it. Responses are built once at start-up, so answering a
// request is a pointer, a length and a delay. Immutable after construction; shared read-only
// by all server threads. (Routes, latency distributions and failures grow here later.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace proofload::target {

// What the connection's parser learned about one request.
struct RequestHead {
  bool is_head = false;    // HEAD: answered with the headers only
  bool keep_alive = true;  // HTTP/1.1 default; false for Connection: close or plain HTTP/1.0
  bool http_1_0 = false;   // an HTTP/1.0 request (keep-alive must then be said explicitly)
};

// The bytes to send (owned by the Handler, valid for its lifetime) and when.
struct Reply {
  const char* data;
  uint32_t size;
  bool close_after;  // close the connection once these bytes are written
  int64_t delay_ns;  // send this long after the request was read
};

enum class RequestError { kBadRequest, kHeaderTooLarge, kBodyTooLarge };

class Handler {
 public:
  Handler(std::string_view body, int64_t delay_ns);

  Reply handle(const RequestHead& request) const;
  // The answer to a request that cannot be served: sent at once, then the connection closes.
  Reply reject(RequestError error) const;

 private:
  // Status line, headers and body in one buffer; HEAD gets the first head_size bytes.
  struct Prepared {
    std::string bytes;
    uint32_t head_size = 0;
  };
  static Prepared prepare(std::string_view status, std::string_view connection,
                          std::string_view body);
  static Reply reply(const Prepared& response, bool is_head, bool close_after, int64_t delay_ns);

  int64_t delay_ns_;
  Prepared ok_keep_alive_;     // HTTP/1.1: persistent by default, no Connection header
  Prepared ok_keep_alive_10_;  // HTTP/1.0 client that asked for keep-alive
  Prepared ok_close_;
  Prepared bad_request_;
  Prepared header_too_large_;
  Prepared body_too_large_;
};

}  // namespace proofload::target
