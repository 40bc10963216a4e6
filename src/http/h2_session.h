// One HTTP/2 client connection's protocol state over nghttp2: the requests sent as streams,
// the responses as they arrive, flow control, SETTINGS, GOAWAY and RST_STREAM. It owns no
// socket: the caller feeds it what it read (receive) and writes what it has to send (output),
// so the engine's worker drives it from its event loop and the tests from memory.
//
// Each stream is an H2Stream the caller owns (one per stream slot, reused): the session fills it
// as the response arrives and lists it in ended() when the stream is over. Response bodies are
// counted and dropped (their flow-control credit returned at once), unless a capture asks for
// their first bytes, as over HTTP/1.1; headers are bounded per response. Not thread-safe.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/h2_request.h"
#include "http/response_parser.h"

namespace proofload::http {

// Our side's SETTINGS. The windows are as large as HTTP/2 allows (as h2load's -w 30 -W 30): a
// load generator measures the server, so its own flow control must never be what slows a
// response; the bytes are consumed as they arrive, so the window costs no memory.
struct H2Settings {
  int32_t stream_window_bytes = (1 << 30) - 1;
  int32_t connection_window_bytes = (1 << 30) - 1;
  size_t max_header_bytes = 64 * 1024;  // one response's header fields (names and values)
};

// How a stream ended.
enum class H2End : uint8_t {
  kOpen,           // not over yet
  kComplete,       // a final response with its whole body
  kRefused,        // REFUSED_STREAM, or above a GOAWAY's last stream: the server did not process it
  kReset,          // RST_STREAM from the server (or the connection failed) before the end
  kProtocolError,  // a malformed response (bad or missing :status, oversized headers, ...)
};

struct H2Stream {
  // The response, filled by the session.
  H2End end = H2End::kOpen;
  int status = 0;           // the final status, 0 until its HEADERS arrived
  uint32_t error_code = 0;  // the RST_STREAM or GOAWAY code when the stream did not complete
  bool got_first_byte = false;
  int64_t first_byte_ns = 0;  // when the first HEADERS of the response arrived
  int64_t body_bytes = 0;
  std::string headers;  // with capture.headers: "name: value\r\n" lines of the final response
  std::string body;     // with capture.max_body_bytes: the first bytes of the body
  bool body_truncated = false;
  const char* error_reason = "";  // kProtocolError: why

  int owner = -1;  // the caller's (the engine: its slot); the session never reads it

  // Set by submit().
  int32_t id = -1;
  ResponseCapture capture;
  std::string_view request_body;
  size_t body_sent = 0;
  size_t header_bytes = 0;
  int interim_responses = 0;
};

class H2Session {
 public:
  // `memory`: where nghttp2 allocates (H2Memory::nghttp2(), outliving the session); null: the
  // C heap.
  explicit H2Session(const H2Settings& settings = {}, nghttp2_mem* memory = nullptr);
  ~H2Session();
  H2Session(const H2Session&) = delete;
  H2Session& operator=(const H2Session&) = delete;

  // Starts `stream` with `head` (and its body). The stream must outlive its end or cancel().
  // False if the session cannot take a new stream (going away, or out of stream ids).
  bool submit(H2Stream& stream, const H2RequestHead& head, ResponseCapture capture);
  // Gives up on a stream (a timeout): RST_STREAM CANCEL, and it is forgotten (never in ended()).
  void cancel(H2Stream& stream);

  // Feeds bytes read from the server, `now_ns` their arrival. False when the connection failed
  // (its reason in error()); the streams it held are then ended as kReset.
  bool receive(const char* data, size_t size, int64_t now_ns);
  // The bytes to write now (frames nghttp2 has queued), empty if none; then say how many were
  // written. The view is valid until the next call of any other member.
  std::string_view output();
  void wrote(size_t bytes);
  // nghttp2 has frames to send (an ACK, a WINDOW_UPDATE, the RST_STREAM or GOAWAY of a malformed
  // response): the caller writes output() soon, even when it has no request of its own to send.
  // A reset stream ends only once its RST_STREAM is out.
  bool wants_write() const { return !failed_ && nghttp2_session_want_write(session_) != 0; }

  // Streams that ended since the last take (each once, in the order they ended).
  std::vector<H2Stream*>& ended() { return ended_; }
  // The connection is over: every open stream ends as kReset and is listed in ended().
  void fail_all_streams();

  bool settings_received() const { return settings_received_; }
  // The server's SETTINGS_MAX_CONCURRENT_STREAMS (UINT32_MAX if it set none).
  uint32_t max_concurrent_streams() const;
  int open_streams() const { return static_cast<int>(live_.size()); }
  bool goaway_received() const { return goaway_received_; }
  uint32_t goaway_error() const { return goaway_error_; }
  // The connection may not take new streams (GOAWAY either way, or failed).
  bool going_away() const {
    return goaway_received_ || failed_ || nghttp2_session_want_read(session_) == 0;
  }
  // Nothing more will be read or written: the connection may be closed.
  bool finished() const {
    return failed_ ||
           (nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0);
  }
  const std::string& error() const { return error_; }
  // We ended the connection with a GOAWAY of an error (the server broke HTTP/2's rules: a frame
  // too large, a PUSH_PROMISE we disabled, a stream id it may not use, a window overflow, ...):
  // its open streams end as protocol errors, not as resets by the server.
  bool sent_protocol_error() const { return sent_goaway_error_; }

 private:
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                       size_t namelen, const uint8_t* value, size_t valuelen, uint8_t flags,
                       void* self);
  static int on_data_chunk(nghttp2_session*, uint8_t flags, int32_t stream_id, const uint8_t* data,
                           size_t len, void* self);
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int on_invalid_frame(nghttp2_session*, const nghttp2_frame* frame, int error, void* self);
  static int on_stream_close(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* self);
  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static ssize_t read_body(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                           uint32_t* data_flags, nghttp2_data_source* source, void* self);
  H2Stream* stream_of(int32_t id) const;
  void fail(std::string reason);
  void protocol_error(H2Stream& stream, const char* reason);
  void forget(H2Stream& stream);  // no longer open: out of live_

  nghttp2_session* session_ = nullptr;
  H2Settings settings_;
  std::vector<H2Stream*> ended_;
  std::string out_;  // frames taken from nghttp2, not yet written
  size_t out_written_ = 0;
  int64_t now_ns_ = 0;
  std::vector<H2Stream*> live_;  // submitted, not ended or cancelled
  bool settings_received_ = false;
  bool goaway_received_ = false;
  uint32_t goaway_error_ = 0;
  bool failed_ = false;
  bool sent_goaway_error_ = false;
  bool received_any_ = false;
  std::string error_;
};

}  // namespace proofload::http
