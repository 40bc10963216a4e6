// HTTP/1.1 response parsing over llhttp, one parser per connection, reused for every response
// on it. Not thread-safe (owned by the connection's worker). Body bytes are counted, not kept,
// unless a capture is asked for (scenario checks and extraction): then the header lines and the
// first bytes of the body are kept in buffers that, once grown, are reused for every response.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace proofload::http {

// Receives a response's body as it is parsed, piece by piece (after de-chunking): a stream's
// tracker reads events as they arrive, never the body whole.
class BodySink {
 public:
  virtual void on_body_piece(std::string_view piece) = 0;
  // A chunk of a chunked body ended (after its pieces): a chunked stream's event boundary.
  virtual void on_chunk_end() {}

 protected:
  ~BodySink() = default;
};

// What to keep of a response besides its status (off by default: the static-request hot path).
struct ResponseCapture {
  bool headers = false;       // the final response's header lines
  size_t max_body_bytes = 0;  // keep up to this many body bytes (after de-chunking)
  BodySink* body_sink = nullptr;  // given every body piece as it is parsed (not owned)
};

class ResponseParser {
 public:
  // `max_header_bytes` bounds the head of each response (status line, header lines and the blank
  // line, counted as received) and, separately, its chunked trailers.
  explicit ResponseParser(size_t max_header_bytes = 64 * 1024);

  static constexpr int kMaxInterimResponses = 32;
  static constexpr size_t kMaxChunkExtensionBytes = 4096;
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;
  // Movable so connections can live in a vector (llhttp keeps a pointer back to its owner,
  // which the move re-points). Do not move from inside feed().
  ResponseParser(ResponseParser&& other) noexcept;
  ResponseParser& operator=(ResponseParser&& other) noexcept;

  using Capture = ResponseCapture;

  // Expects a new response; call before each request. `head_request`: the request was HEAD, so
  // no body follows whatever Content-Length says.
  void start(bool head_request = false, Capture capture = {});

  enum class State { kNeedMore, kComplete, kError };
  struct Result {
    State state;
    size_t consumed;  // bytes of this call's input that belong to the response
  };

  // Feeds received bytes. Stops right after one complete final response: interim 1xx responses
  // (100 Continue, 103 Early Hints) are skipped, up to kMaxInterimResponses of them (more is an
  // error: a server flooding them would hold the response forever); 101 counts as final. A
  // status below 100 is an error; a 204 that announces a body is an error; a 304 (and any answer
  // to HEAD) has no body whatever its Content-Length says. llhttp runs in strict mode: a chunk
  // not followed by CRLF is an error, and so is a chunk extension over kMaxChunkExtensionBytes. On
  // kComplete, bytes after `consumed` are not part of the response (the caller decides; the engine
  // treats them as a protocol error). After kComplete or kError, further calls return the same
  // state with consumed 0 until start().
  Result feed(const char* data, size_t size);
  // The peer closed the connection: kComplete for a body delimited by the close, kNeedMore if
  // nothing of this response had arrived (an idle connection closed), else kError.
  Result finish_eof();

  bool received_any() const { return received_any_; }  // a byte of this response was fed
  int status() const { return status_; }               // 0 until the headers are complete
  // After kComplete: may the connection carry another request? (false for HTTP/1.0 without
  // keep-alive, Connection: close, a close-delimited body, and 101 Switching Protocols)
  bool keep_alive() const { return keep_alive_; }
  int64_t body_bytes() const { return body_bytes_; }  // body of this response, after de-chunking
  const char* error_reason() const { return error_text_; }  // after kError; "" otherwise
  // With Capture::headers: the final response's header lines as "Name: value\r\n" each
  // (names and values as received; obs-fold continuations joined by llhttp). Else empty.
  std::string_view captured_headers() const { return headers_; }
  // With Capture::max_body_bytes: the first bytes of the body, up to the cap. Else empty.
  std::string_view captured_body() const { return body_; }
  bool body_truncated() const { return body_truncated_; }  // the body was longer than the cap

 private:
  static const llhttp_settings_t& settings();
  static ResponseParser& self(llhttp_t* parser);
  static int on_status_complete(llhttp_t* parser);
  static int on_header_field(llhttp_t* parser, const char* at, size_t length);
  static int on_header_value(llhttp_t* parser, const char* at, size_t length);
  static int on_header_field_complete(llhttp_t* parser);
  static int on_header_value_complete(llhttp_t* parser);
  int count_trailer_bytes(size_t length);
  static int on_headers_complete(llhttp_t* parser);
  static int on_body(llhttp_t* parser, const char* at, size_t length);
  static int on_chunk_extension(llhttp_t* parser, const char* at, size_t length);
  static int on_chunk_header(llhttp_t* parser);
  static int on_chunk_complete(llhttp_t* parser);
  static int on_message_complete(llhttp_t* parser);

  void begin_message();  // forgets everything of the message in progress
  Result fail(const char* what, const char* detail, size_t consumed);
  Result fail_from_llhttp(llhttp_errno_t error, size_t consumed);

  llhttp_t parser_;
  size_t max_header_bytes_;
  bool head_request_ = false;
  State state_ = State::kNeedMore;
  bool received_any_ = false;
  int interim_responses_ = 0;  // 1xx responses skipped before the final one
  // Per message (reset for each interim 1xx response as well):
  size_t head_bytes_ = 0;             // head bytes fed while the headers were incomplete
  size_t trailer_bytes_ = 0;          // field and value bytes of chunked trailers
  size_t chunk_extension_bytes_ = 0;  // of the chunk being read
  bool status_line_done_ = false;
  bool headers_complete_ = false;
  bool final_complete_ = false;  // on_message_complete ran for a final (non-1xx) response
  int status_ = 0;
  bool keep_alive_ = false;
  int64_t body_bytes_ = 0;
  char error_text_[112] = {};
  Capture capture_;
  std::string headers_;  // per message, with capture_.headers
  std::string body_;     // per message, up to capture_.max_body_bytes
  bool body_truncated_ = false;
};

}  // namespace proofload::http
