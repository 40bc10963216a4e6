// The per-request step of the built-in server: given what the parser learned about a request,
// decide what to send and when. A handler fills a ReplyBuilder with one or more parts, each due
// a delay after the request was read (a trickled body is a few such parts), or with a
// ReplyStream whose parts are made as they fall due (SSE events, any number of them). Handlers
// are immutable after construction, or synchronise what they share; they are called from every
// server thread.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace proofload::serve {

// What the connection's parser learned about one request. Views are valid during handle().
struct RequestHead {
  bool is_head = false;      // HEAD: answered with the headers only
  bool keep_alive = true;    // HTTP/1.1 default; false for Connection: close or plain HTTP/1.0
  bool http_1_0 = false;     // an HTTP/1.0 request (keep-alive must then be said explicitly)
  std::string_view method;   // "GET", "POST", ...
  std::string_view target;   // the request-target as sent: "/items/7?x=1"
  std::string_view body;     // the first kMaxCapturedBodyBytes of the body
  std::string_view headers;  // "name:value\n" per header, names in lower case
  const sockaddr_storage* peer = nullptr;  // the client's address
  int thread_index = 0;                    // the server thread handling it (for per-thread state)

  // The value of the first header called `lower_case_name` ("" when absent).
  std::string_view header(std::string_view lower_case_name) const;
};

constexpr size_t kMaxCapturedBodyBytes = 64 * 1024;

// A body made part by part as each part falls due (an SSE stream's events): the connection
// keeps only the stream's position and the bytes of the parts being written, so a stream of any
// length costs one reply part and bounded memory. Immutable once built and shared by every
// connection and thread; must outlive the handler's replies (the handler owns it).
class ReplyStream {
 public:
  virtual ~ReplyStream() = default;
  virtual int64_t part_count() const = 0;
  // When part `index` falls due, from the stream's start; never decreasing with `index`.
  virtual int64_t part_offset_ns(int64_t index) const = 0;
  // Appends the bytes of part `index` (never empty) to `out`.
  virtual void append_part(int64_t index, std::string& out) const = 0;
};

// Collects the parts of one reply. Implemented by the server's worker over the connection's
// reply queue; a handler adds at most kMaxReplyParts parts (a stream counts as one).
class ReplyBuilder {
 public:
  static constexpr int kMaxReplyParts = 24;
  virtual ~ReplyBuilder() = default;
  // Bytes the handler keeps alive for its own lifetime (prepared responses).
  virtual void send(std::string_view prepared, int64_t delay_ns) = 0;
  // Bytes made for this request: the returned string (empty, its capacity reused) is sent.
  virtual std::string& send_built(int64_t delay_ns) = 0;
  // The parts of `stream`, part i due `delay_ns + stream.part_offset_ns(i)` after the request
  // was read (or as soon as the parts ahead of it are written, if later).
  virtual void stream(const ReplyStream& stream, int64_t delay_ns) = 0;
  // Close the connection once the parts are written.
  virtual void close_after() = 0;
  // Close the connection after `delay_ns` with a reset, sending nothing more.
  virtual void abort(int64_t delay_ns) = 0;
};

enum class RequestError { kBadRequest, kHeaderTooLarge, kBodyTooLarge, kRequestTimeout };

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  virtual void handle(const RequestHead& request, ReplyBuilder& reply) const = 0;
  // The answer to a request that cannot be served: sent at once, then the connection closes.
  virtual void reject(RequestError error, ReplyBuilder& reply) const = 0;
  // A streamed answer ended: its last part written (`completed`), or its connection closed
  // first (the client went away mid-stream). From the server thread that wrote it.
  virtual void stream_ended(bool completed) const { (void)completed; }
};

// Status line, headers and body in one buffer, built once; HEAD gets the first head_size bytes.
struct PreparedResponse {
  std::string bytes;
  uint32_t head_size = 0;
  std::string_view for_request(bool is_head) const {
    return is_head ? std::string_view(bytes).substr(0, head_size) : std::string_view(bytes);
  }
};

// Appends "HTTP/1.1 <status>", Server, Content-Type, Content-Length (unless content_length < 0),
// Connection (unless empty) and `extra_headers` (each ending in CRLF), then the blank line.
void append_response_head(std::string& out, std::string_view status, std::string_view content_type,
                          int64_t content_length, std::string_view connection,
                          std::string_view extra_headers = {});
PreparedResponse prepare_response(std::string_view status, std::string_view connection,
                                  std::string_view body,
                                  std::string_view content_type = "text/plain");
// The Connection header a reply to `request` carries: "" (HTTP/1.1 keep-alive), "keep-alive"
// (HTTP/1.0 that asked for it) or "close".
std::string_view connection_header(const RequestHead& request);

// Every request gets 200 and the same body, after a fixed delay: `serve` without routes.
class StaticHandler : public RequestHandler {
 public:
  StaticHandler(std::string_view body, int64_t delay_ns);
  void handle(const RequestHead& request, ReplyBuilder& reply) const override;
  void reject(RequestError error, ReplyBuilder& reply) const override;

 private:
  int64_t delay_ns_;
  PreparedResponse ok_keep_alive_;     // HTTP/1.1: persistent by default, no Connection header
  PreparedResponse ok_keep_alive_10_;  // HTTP/1.0 client that asked for keep-alive
  PreparedResponse ok_close_;
};

// The rejections every handler sends the same way.
void reject_request(RequestError error, ReplyBuilder& reply);

}  // namespace proofload::serve
