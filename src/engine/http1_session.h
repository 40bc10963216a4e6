// HTTP/1.1 on one connection, one request at a time: the bytes of the request still to write, and
// what the bytes read back mean (the response parser and the read step, read_step.h). The
// counterpart of http::H2Session, which does the same for the streams of an HTTP/2 connection:
// the link's wire moves the bytes (worker_http1.cc), the session says which bytes to write and
// what a read's bytes did to the request. Inline: every call is on the hot path, once a request
// or once a read, never per byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/read_step.h"
#include "http/response_parser.h"
#include "workload/response_view.h"

namespace proofload::engine {

class Http1Session {
 public:
  // A new request on the connection: its bytes (the workload's, which outlive its response) and
  // how its response is read (a HEAD's has no body; what of it is kept).
  void submit(std::string_view request, bool is_head, const http::ResponseCapture& capture) {
    request_ = request;
    written_ = 0;
    first_byte_ns_ = -1;
    parser_.start(is_head, capture);
  }

  // What is left to write of the request; empty once it is all written.
  std::string_view output() const { return request_.substr(written_); }
  void wrote(size_t bytes) { written_ += bytes; }
  bool request_written() const { return written_ == request_.size(); }

  // One read's bytes (`size` > 0), read at `now`: the response is complete (and whether the
  // connection may carry the next request), needs more, or is broken.
  ReadStep receive(const char* data, size_t size, int64_t now) {
    if (first_byte_ns_ < 0) first_byte_ns_ = now;
    return on_response_bytes(parser_, data, size, request_written());
  }
  // The server closed its side. `without_close_notify`: TLS ended by a bare FIN.
  ReadStep receive_close(bool without_close_notify) {
    return on_response_eof(parser_, without_close_notify);
  }

  // The response read so far: its status, captured headers and body (complete once receive said
  // so), as every session hands a response to the worker.
  workload::ResponseView response() const {
    return {parser_.status(), parser_.captured_headers(), parser_.captured_body(),
            parser_.body_truncated()};
  }
  // When the response's first byte was read (-1: none yet).
  int64_t first_byte_ns() const { return first_byte_ns_; }

 private:
  std::string_view request_;
  size_t written_ = 0;
  int64_t first_byte_ns_ = -1;
  http::ResponseParser parser_;
};

}  // namespace proofload::engine
