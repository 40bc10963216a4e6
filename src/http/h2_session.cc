#include "http/h2_session.h"

#include <algorithm>
#include <cstring>

namespace proofload::http {
namespace {

constexpr size_t kOutputChunkBytes = 64 * 1024;  // frames gathered per write
constexpr int kMaxInterimResponses = ResponseParser::kMaxInterimResponses;

H2Session& self_of(void* p) { return *static_cast<H2Session*>(p); }

}  // namespace

H2Session::H2Session(const H2Settings& settings, nghttp2_mem* memory) : settings_(settings) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, on_invalid_frame);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
  nghttp2_session_client_new3(&session_, callbacks, this, nullptr, memory);
  nghttp2_session_callbacks_del(callbacks);

  const nghttp2_settings_entry entries[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<uint32_t>(settings_.stream_window_bytes)},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, entries, std::size(entries));
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                        settings_.connection_window_bytes);
}

H2Session::~H2Session() {
  // Streams still open are not reported: the owner is going away with them.
  nghttp2_session_del(session_);
}

// A stream's H2Stream, if it is still ours: the id check also covers a request cancelled before
// its HEADERS were sent (nghttp2 then cannot clear its user data) whose slot moved on.
H2Stream* H2Session::stream_of(int32_t id) const {
  auto* stream = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session_, id));
  return stream != nullptr && stream->id == id ? stream : nullptr;
}

bool H2Session::submit(H2Stream& stream, const H2RequestHead& head, ResponseCapture capture) {
  if (going_away()) return false;
  stream.end = H2End::kOpen;
  stream.status = 0;
  stream.error_code = 0;
  stream.got_first_byte = false;
  stream.body_bytes = 0;
  stream.headers.clear();
  stream.body.clear();
  stream.body_truncated = false;
  stream.error_reason = "";
  stream.capture = capture;
  stream.request_body = head.body();
  stream.body_sent = 0;
  stream.header_bytes = 0;
  stream.interim_responses = 0;
  nghttp2_data_provider body{};
  body.read_callback = read_body;
  const int32_t id = nghttp2_submit_request(session_, nullptr, head.headers(), head.header_count(),
                                            stream.request_body.empty() ? nullptr : &body, &stream);
  if (id < 0) {
    if (id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE) fail("out of stream ids");
    return false;
  }
  stream.id = id;
  live_.push_back(&stream);
  return true;
}

void H2Session::cancel(H2Stream& stream) {
  if (stream.id < 0 || std::find(live_.begin(), live_.end(), &stream) == live_.end()) return;
  // For a stream whose HEADERS are not sent yet nghttp2 1.52 cannot clear the user data; the
  // id check of stream_of covers it once the slot moved on.
  nghttp2_session_set_stream_user_data(session_, stream.id, nullptr);
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_CANCEL);
  forget(stream);
}

void H2Session::forget(H2Stream& stream) {
  stream.id = -1;
  live_.erase(std::find(live_.begin(), live_.end(), &stream));
}

bool H2Session::receive(const char* data, size_t size, int64_t now_ns) {
  if (failed_) return false;
  now_ns_ = now_ns;
  const ssize_t used =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(data), size);
  // h2c against a server that only speaks HTTP/1.1: it answers the preface with a 400, which
  // nghttp2 reads as an oversized frame.
  if (!received_any_ && size >= 7 && std::memcmp(data, "HTTP/1.", 7) == 0) {
    fail("the server answered in HTTP/1.1: it does not speak HTTP/2 on this port");
    return false;
  }
  received_any_ = true;
  if (used < 0) {
    fail(nghttp2_strerror(static_cast<int>(used)));
    return false;
  }
  return true;
}

std::string_view H2Session::output() {
  if (out_written_ == out_.size()) {
    out_.clear();
    out_written_ = 0;
  }
  while (!failed_ && out_.size() < kOutputChunkBytes) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      fail(nghttp2_strerror(static_cast<int>(n)));
      break;
    }
    if (n == 0) break;
    out_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  return std::string_view(out_).substr(out_written_);
}

void H2Session::wrote(size_t bytes) { out_written_ = std::min(out_.size(), out_written_ + bytes); }

uint32_t H2Session::max_concurrent_streams() const {
  return nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
}

void H2Session::fail(std::string reason) {
  if (!failed_) error_ = std::move(reason);
  failed_ = true;
  fail_all_streams();
}

void H2Session::fail_all_streams() {
  for (H2Stream* stream : live_) {
    nghttp2_session_set_stream_user_data(session_, stream->id, nullptr);
    stream->end = H2End::kReset;
    stream->id = -1;
    ended_.push_back(stream);
  }
  live_.clear();
}

void H2Session::protocol_error(H2Stream& stream, const char* reason) {
  if (stream.end == H2End::kOpen) {
    stream.end = H2End::kProtocolError;
    stream.error_reason = reason;
  }
}

int H2Session::on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* self) {
  H2Stream* stream = self_of(self).stream_of(frame->hd.stream_id);
  if (stream != nullptr && !stream->got_first_byte) {
    stream->got_first_byte = true;
    stream->first_byte_ns = self_of(self).now_ns_;
  }
  return 0;
}

int H2Session::on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                         size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                         void* self) {
  H2Session& session = self_of(self);
  H2Stream* stream = session.stream_of(frame->hd.stream_id);
  if (stream == nullptr || frame->hd.type != NGHTTP2_HEADERS) return 0;
  const std::string_view n(reinterpret_cast<const char*>(name), namelen);
  const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":status") {
    // nghttp2 has checked it is three digits.
    const int status = (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
    if (status >= 100 && status < 200) {
      // Interim (103 Early Hints, ...): the final response follows; bounded as over HTTP/1.1.
      if (++stream->interim_responses > kMaxInterimResponses) {
        session.protocol_error(*stream, "more interim (1xx) responses than allowed");
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
      }
      stream->headers.clear();
      stream->header_bytes = 0;
      return 0;
    }
    stream->status = status;
    return 0;
  }
  stream->header_bytes += namelen + valuelen;
  if (stream->header_bytes > session.settings_.max_header_bytes) {
    session.protocol_error(*stream, "response headers over the limit");
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // nghttp2 resets the stream
  }
  // Trailers (a HEADERS frame after the final response's) are counted, not kept.
  if (stream->capture.headers && frame->headers.cat == NGHTTP2_HCAT_RESPONSE) {
    stream->headers.append(n).append(": ").append(v).append("\r\n");
  }
  return 0;
}

int H2Session::on_data_chunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data,
                             size_t len, void* self) {
  H2Stream* stream = self_of(self).stream_of(stream_id);
  if (stream == nullptr) return 0;
  stream->body_bytes += static_cast<int64_t>(len);
  if (stream->capture.body_sink != nullptr) {
    stream->capture.body_sink->on_body_piece({reinterpret_cast<const char*>(data), len});
  }
  const size_t cap = stream->capture.max_body_bytes;
  if (stream->body.size() < cap) {
    const size_t take = std::min(len, cap - stream->body.size());
    stream->body.append(reinterpret_cast<const char*>(data), take);
    if (take < len) stream->body_truncated = true;
  } else if (cap > 0) {
    stream->body_truncated = true;
  }
  return 0;
}

int H2Session::on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* self) {
  H2Session& s = self_of(self);
  switch (frame->hd.type) {
    case NGHTTP2_SETTINGS:
      if ((frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) s.settings_received_ = true;
      return 0;
    case NGHTTP2_GOAWAY:
      s.goaway_received_ = true;
      s.goaway_error_ = frame->goaway.error_code;
      return 0;
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
      break;
    default:
      return 0;
  }
  if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
  H2Stream* stream = s.stream_of(frame->hd.stream_id);
  if (stream == nullptr) return 0;
  if (stream->status == 0) s.protocol_error(*stream, "the response ended without a final status");
  if (stream->end == H2End::kOpen) stream->end = H2End::kComplete;
  // The response is over: the stream's slot may carry its next request at once. Should part of
  // our request body be unsent still (the server answered early), the rest is not sent.
  nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, nullptr);
  if (stream->body_sent < stream->request_body.size()) {
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_NO_ERROR);
  }
  s.forget(*stream);
  s.ended_.push_back(stream);
  return 0;
}

int H2Session::on_invalid_frame(nghttp2_session*, const nghttp2_frame* frame, int error,
                                void* self) {
  H2Stream* stream = self_of(self).stream_of(frame->hd.stream_id);
  if (stream != nullptr) self_of(self).protocol_error(*stream, nghttp2_strerror(error));
  return 0;
}

// What we send that says the server broke the protocol. nghttp2 answers a malformed response
// (DATA beyond its content-length, a bad :status, a header block it cannot decode, ...) with an
// RST_STREAM of its own; the stream then closes with that code, which would read as a reset by
// the server. A stream we cancel (a timeout) is forgotten before its RST_STREAM is sent, so it
// is not ours here.
int H2Session::on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* self) {
  H2Session& s = self_of(self);
  if (frame->hd.type == NGHTTP2_RST_STREAM && frame->rst_stream.error_code != NGHTTP2_NO_ERROR) {
    H2Stream* stream = s.stream_of(frame->hd.stream_id);
    if (stream != nullptr) {
      s.protocol_error(*stream, nghttp2_http2_strerror(frame->rst_stream.error_code));
    }
  } else if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR) {
    s.sent_goaway_error_ = true;
    for (H2Stream* stream : s.live_) {
      s.protocol_error(*stream, nghttp2_http2_strerror(frame->goaway.error_code));
    }
  }
  return 0;
}

int H2Session::on_stream_close(nghttp2_session* session, int32_t stream_id, uint32_t error_code,
                               void* self) {
  H2Session& s = self_of(self);
  H2Stream* stream = s.stream_of(stream_id);
  if (stream == nullptr) return 0;  // ended already (complete, cancelled) or not ours
  nghttp2_session_set_stream_user_data(session, stream_id, nullptr);
  if (stream->end == H2End::kOpen) {
    stream->end = error_code == NGHTTP2_REFUSED_STREAM ? H2End::kRefused : H2End::kReset;
  }
  stream->error_code = error_code;
  s.forget(*stream);
  s.ended_.push_back(stream);
  return 0;
}

ssize_t H2Session::read_body(nghttp2_session* session, int32_t stream_id, uint8_t* buf,
                             size_t length, uint32_t* data_flags, nghttp2_data_source*, void*) {
  // Looked up by id, never through the data source: a stream that ended is no longer ours.
  auto* stream = static_cast<H2Stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
  if (stream == nullptr || stream->id != stream_id) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  const size_t n = std::min(length, stream->request_body.size() - stream->body_sent);
  std::memcpy(buf, stream->request_body.data() + stream->body_sent, n);
  stream->body_sent += n;
  if (stream->body_sent == stream->request_body.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace proofload::http
