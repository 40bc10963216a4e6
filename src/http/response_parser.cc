// HTTP/1.1 response parsing over llhttp (see response_parser.h). Not thread-safe; one per
// connection. The hot path (feed) is one llhttp_execute per call in the common case, no
// allocation, no exceptions.
#include "http/response_parser.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

namespace proofload::http {

namespace {
constexpr int kStatusSwitchingProtocols = 101;
}  // namespace

const llhttp_settings_t& ResponseParser::settings() {
  static const llhttp_settings_t kSettings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_status_complete = &ResponseParser::on_status_complete;
    s.on_header_field = &ResponseParser::on_header_field;
    s.on_header_value = &ResponseParser::on_header_value;
    s.on_header_field_complete = &ResponseParser::on_header_field_complete;
    s.on_header_value_complete = &ResponseParser::on_header_value_complete;
    s.on_headers_complete = &ResponseParser::on_headers_complete;
    s.on_body = &ResponseParser::on_body;
    s.on_chunk_extension_name = &ResponseParser::on_chunk_extension;
    s.on_chunk_extension_value = &ResponseParser::on_chunk_extension;
    s.on_chunk_header = &ResponseParser::on_chunk_header;
    s.on_chunk_complete = &ResponseParser::on_chunk_complete;
    s.on_message_complete = &ResponseParser::on_message_complete;
    return s;
  }();
  return kSettings;
}

ResponseParser::ResponseParser(size_t max_header_bytes) : max_header_bytes_(max_header_bytes) {
  llhttp_init(&parser_, HTTP_RESPONSE, &settings());
  parser_.data = this;
  start(false);
}

ResponseParser::ResponseParser(ResponseParser&& other) noexcept { *this = std::move(other); }

ResponseParser& ResponseParser::operator=(ResponseParser&& other) noexcept {
  if (this == &other) return *this;
  // Every member is plain data; llhttp_t is a C struct whose only self-reference is `data`.
  parser_ = other.parser_;
  parser_.data = this;
  max_header_bytes_ = other.max_header_bytes_;
  head_request_ = other.head_request_;
  state_ = other.state_;
  received_any_ = other.received_any_;
  interim_responses_ = other.interim_responses_;
  chunk_extension_bytes_ = other.chunk_extension_bytes_;
  head_bytes_ = other.head_bytes_;
  trailer_bytes_ = other.trailer_bytes_;
  status_line_done_ = other.status_line_done_;
  headers_complete_ = other.headers_complete_;
  final_complete_ = other.final_complete_;
  status_ = other.status_;
  keep_alive_ = other.keep_alive_;
  body_bytes_ = other.body_bytes_;
  std::memcpy(error_text_, other.error_text_, sizeof(error_text_));
  capture_ = other.capture_;
  headers_ = std::move(other.headers_);
  body_ = std::move(other.body_);
  body_truncated_ = other.body_truncated_;
  return *this;
}

void ResponseParser::start(bool head_request, Capture capture) {
  head_request_ = head_request;
  capture_ = capture;
  state_ = State::kNeedMore;
  received_any_ = false;
  interim_responses_ = 0;
  error_text_[0] = '\0';
  begin_message();
}

void ResponseParser::begin_message() {
  // A fresh llhttp state also drops a pause and any "connection closed" state left by the
  // previous message; settings, `data` and lenient flags survive the reset.
  llhttp_reset(&parser_);
  head_bytes_ = 0;
  trailer_bytes_ = 0;
  chunk_extension_bytes_ = 0;
  status_line_done_ = false;
  headers_complete_ = false;
  final_complete_ = false;
  status_ = 0;
  keep_alive_ = false;
  body_bytes_ = 0;
  headers_.clear();  // keeps the capacity: no allocation once the buffers have grown
  body_.clear();
  body_truncated_ = false;
}

ResponseParser::Result ResponseParser::feed(const char* data, size_t size) {
  if (state_ != State::kNeedMore) return {state_, 0};
  if (size == 0) return {State::kNeedMore, 0};
  received_any_ = true;

  size_t offset = 0;
  while (offset < size) {
    size_t slice = size - offset;
    if (!headers_complete_) {
      // Hand llhttp no more than the head may still grow by, so an endless head costs at most
      // max_header_bytes of parsing however large the read was.
      const size_t budget = max_header_bytes_ - head_bytes_;
      if (budget == 0) return fail("response header too large", nullptr, offset);
      slice = std::min(slice, budget);
    }
    const char* begin = data + offset;
    const llhttp_errno_t error = llhttp_execute(&parser_, begin, slice);
    if (error == HPE_OK) {
      if (!headers_complete_) head_bytes_ += slice;
      offset += slice;
      continue;
    }
    if (error == HPE_PAUSED) {
      // on_message_complete paused llhttp right after the message's last byte.
      offset += static_cast<size_t>(llhttp_get_error_pos(&parser_) - begin);
      if (final_complete_) {
        state_ = State::kComplete;
        return {State::kComplete, offset};
      }
      // An interim 1xx response: the final one follows, unless the server sends them forever.
      if (++interim_responses_ > kMaxInterimResponses) {
        return fail("too many interim (1xx) responses", nullptr, offset);
      }
      begin_message();
      continue;
    }
    const char* pos = llhttp_get_error_pos(&parser_);
    return fail_from_llhttp(error,
                            pos != nullptr ? offset + static_cast<size_t>(pos - begin) : offset);
  }
  return {State::kNeedMore, size};
}

ResponseParser::Result ResponseParser::finish_eof() {
  if (state_ != State::kNeedMore) return {state_, 0};
  if (!received_any_) return {State::kNeedMore, 0};
  // Runs on_message_complete when the body was delimited by the close; otherwise reports an
  // unsafe EOF (or OK when only interim responses had arrived).
  llhttp_finish(&parser_);
  if (final_complete_) {
    state_ = State::kComplete;
    return {State::kComplete, 0};
  }
  return fail("connection closed before the response was complete", nullptr, 0);
}

ResponseParser& ResponseParser::self(llhttp_t* parser) {
  return *static_cast<ResponseParser*>(parser->data);
}

int ResponseParser::on_status_complete(llhttp_t* parser) {
  self(parser).status_line_done_ = true;
  return HPE_OK;
}

// The head is bounded in feed(); only trailers (after the headers) are counted here.
int ResponseParser::count_trailer_bytes(size_t length) {
  trailer_bytes_ += length;
  if (trailer_bytes_ > max_header_bytes_) {
    llhttp_set_error_reason(&parser_, "response trailers too large");
    return HPE_USER;
  }
  return HPE_OK;
}

// Field and value bytes may arrive in several pieces (split across reads); the *_complete
// callbacks add the separators. Trailers are counted but never captured.
int ResponseParser::on_header_field(llhttp_t* parser, const char* at, size_t length) {
  ResponseParser& p = self(parser);
  if (p.headers_complete_) return p.count_trailer_bytes(length);
  if (p.capture_.headers) p.headers_.append(at, length);
  return HPE_OK;
}

int ResponseParser::on_header_value(llhttp_t* parser, const char* at, size_t length) {
  ResponseParser& p = self(parser);
  if (p.headers_complete_) return p.count_trailer_bytes(length);
  if (p.capture_.headers) p.headers_.append(at, length);
  return HPE_OK;
}

int ResponseParser::on_header_field_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  if (p.capture_.headers && !p.headers_complete_) p.headers_.append(": ");
  return HPE_OK;
}

int ResponseParser::on_header_value_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  if (p.capture_.headers && !p.headers_complete_) p.headers_.append("\r\n");
  return HPE_OK;
}

int ResponseParser::on_headers_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  p.headers_complete_ = true;
  const int status = parser->status_code;
  p.status_ = status;
  if (status < 100) {
    llhttp_set_error_reason(parser, "status code below 100");
    return HPE_USER;
  }
  const bool announces_body =
      (parser->flags & F_CHUNKED) != 0 ||
      ((parser->flags & F_CONTENT_LENGTH) != 0 && parser->content_length > 0);
  if (status == 204 && announces_body) {
    llhttp_set_error_reason(parser, "a 204 (No Content) response with a body");
    return HPE_USER;
  }
  // 1: no body follows, whatever the headers say. A HEAD response announces the length of the
  // body a GET would have had, and a 304's Content-Length is the representation's (RFC 9110
  // 8.6): neither has a body. llhttp cannot know the request method in response mode, and (8.1)
  // reads a 304's Content-Length as a body.
  return p.head_request_ || status == 304 ? 1 : 0;
}

int ResponseParser::on_chunk_extension(llhttp_t* parser, const char*, size_t length) {
  ResponseParser& p = self(parser);
  p.chunk_extension_bytes_ += length;
  if (p.chunk_extension_bytes_ > kMaxChunkExtensionBytes) {
    llhttp_set_error_reason(parser, "chunk extension too long");
    return HPE_USER;
  }
  return HPE_OK;
}

int ResponseParser::on_chunk_header(llhttp_t* parser) {
  self(parser).chunk_extension_bytes_ = 0;  // the next chunk's extensions count from zero
  return HPE_OK;
}

int ResponseParser::on_chunk_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  if (p.capture_.body_sink != nullptr) p.capture_.body_sink->on_chunk_end();
  return HPE_OK;
}

int ResponseParser::on_body(llhttp_t* parser, const char* at, size_t length) {
  ResponseParser& p = self(parser);
  p.body_bytes_ += static_cast<int64_t>(length);
  if (p.capture_.body_sink != nullptr) p.capture_.body_sink->on_body_piece({at, length});
  if (p.capture_.max_body_bytes > 0) {
    size_t room = p.capture_.max_body_bytes - p.body_.size();
    p.body_.append(at, std::min(room, length));
    if (length > room) p.body_truncated_ = true;
  }
  return HPE_OK;
}

int ResponseParser::on_message_complete(llhttp_t* parser) {
  ResponseParser& p = self(parser);
  const int status = parser->status_code;
  p.status_ = status;
  if (status >= 200 || status == kStatusSwitchingProtocols) {
    p.final_complete_ = true;
    // After 101 the connection speaks another protocol: never reuse it for HTTP/1.1.
    p.keep_alive_ = status != kStatusSwitchingProtocols && llhttp_should_keep_alive(parser) != 0;
  }
  // Pause either way so feed() learns exactly where this message ended.
  return HPE_PAUSED;
}

ResponseParser::Result ResponseParser::fail(const char* what, const char* detail, size_t consumed) {
  state_ = State::kError;
  if (detail != nullptr && detail[0] != '\0') {
    std::snprintf(error_text_, sizeof(error_text_), "%s (%s)", what, detail);
  } else {
    std::snprintf(error_text_, sizeof(error_text_), "%s", what);
  }
  return {State::kError, consumed};
}

ResponseParser::Result ResponseParser::fail_from_llhttp(llhttp_errno_t error, size_t consumed) {
  const char* detail = llhttp_get_error_reason(&parser_);
  if (error == HPE_USER) return fail(detail, nullptr, consumed);  // our own callbacks' reason
  const char* what = "invalid body";
  if (!status_line_done_) {
    what = "invalid status line";
  } else if (!headers_complete_) {
    what = "invalid header";
  } else if ((parser_.flags & F_CHUNKED) != 0) {
    what = "invalid chunked body";
  }
  return fail(what, detail, consumed);
}

}  // namespace proofload::http
